#!/bin/bash
# Does the original CubeLib 4.6 read every report cubekit writes with the values cubekit reads?
# Run by hand (CI has no CubeLib): each case writes a report with a cubekit tool, then CubeLib's
# cube_dump and ours dump it with the same options (-w; -m all -z incl/excl -t aggr; -m all -z
# incl -s csv2) and standard output and exit code must agree. Results: docs/compatibility.md.
#
#   scripts/reference_check.sh [-k DIR] [CASE_PATTERN]
#     CUBELIB_BIN  the original's bin folder (default /work/ref/install/bin;
#                  ../shared/docs/reference-cubelib.md builds it)
#     CUBEKIT_BIN  the folder with cubekit and its tool links (default build/)
#     SHARED       ../shared (default: next to the repository)
#     -k DIR       keep every report and dump there (default: a temporary folder, removed)
# Prints one line per (case, dump) and a summary; exits 1 if any dump differs or fails.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
ref_bin=${CUBELIB_BIN:-/work/ref/install/bin}
our_bin=$(cd "${CUBEKIT_BIN:-$repo/build}" && pwd)
shared=$(cd "${SHARED:-$repo/../shared}" && pwd)
keep=""
if [ "${1:-}" = "-k" ]; then keep=$2; shift 2; fi
pattern=${1:-}

for tool in "$ref_bin/cube_dump" "$our_bin/cube_dump" "$our_bin/cubekit"; do
  [ -x "$tool" ] || { echo "reference_check: $tool missing (build it first)" >&2; exit 1; }
done
if [ -n "$keep" ]; then
  work=$keep
  mkdir -p "$work"
else
  work=$(mktemp -d /tmp/cubekit-refcheck.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
work=$(cd "$work" && pwd)

real=$shared/data/real
# The inputs under the names the oracle's _algebra steps use.
declare -A input=(
  [blast.cubex]=$real/pycubexr/blast.p64.r1/profile.cubex
  [time_p4.cubex]=$real/pycubexr/time.p4.n2000.x1.r0/profile.cubex
  [ctt.cubex]=$real/pycubexr/call_tree_test/call_tree_test.cubex
  [profile.cube]=$real/cubelib/test16/profile.cube
  [trace.cube]=$real/cubelib/test16/trace.cube
  [summary.cubex]=$real/cubelib/examples/summary.cubex
  [x1.cubex]=$real/extrap/single_parameter/mm.x1y1z1.r1.cubex
  [x10.cubex]=$real/extrap/single_parameter/mm.x10y1z1.r1.cubex
  [f1.cubex]=$real/extrap/simple_threaded/cube-example1.cubex
  [f2.cubex]=$real/extrap/simple_threaded/cube-example2.cubex
  [test0.cube]=$real/cubelib/test0.0/test0.0.cube
  [template.cube]=$real/cubelib/test1.1/template.cube
)
for name in "${!input[@]}"; do ln -sf "${input[$name]}" "$work/$name"; done
for spec in "$real"/cubelib/remap/*.spec; do ln -sf "$spec" "$work/"; done

# case name | command (run by bash in $work with our tools first on PATH) | report(s) written
cases=(
  "generate_plain|cubekit generate --call-paths 800 --seed 7 -o generate_plain.cubex|generate_plain.cubex"
  "generate_compress|cubekit generate --call-paths 800 --seed 7 --compress -o generate_compress.cubex|generate_compress.cubex"
  "generate_all_types|cubekit generate --call-paths 800 --seed 7 --all-types -o generate_all_types.cubex|generate_all_types.cubex"
  "generate_all_types_compress|cubekit generate --call-paths 800 --seed 7 --all-types --compress --papi -o generate_atc.cubex|generate_atc.cubex"
  "generate_gpus|cubekit generate --call-paths 800 --seed 7 --gpus 2 -o generate_gpus.cubex|generate_gpus.cubex"
  "generate_gpus_compress|cubekit generate --call-paths 800 --seed 9 --gpus 3 --threads 3 --compress -o generate_gpus_z.cubex|generate_gpus_z.cubex"
  "remap2_blast_scorep|cube_remap2 -r scorep.spec -o remap_blast blast.cubex|remap_blast.cubex"
  "remap2_blast_scorep_s_d|cube_remap2 -r scorep.spec -s -d -o remap_blast_sd blast.cubex|remap_blast_sd.cubex"
  "remap2_profile_ghost|cube_remap2 -r ghost.spec -d -o ghost profile.cube|ghost.cubex"
  "remap2_profile_scout2|cube_remap2 -r scout2.spec -s -d -o scout2 profile.cube|scout2.cubex"
  "remap2_profile_void1|env TEST_EXP1=false cube_remap2 -r void.spec -d -o void1 profile.cube|void1.cubex"
  "remap2_profile_void_both|cube_remap2 -r void.spec -d -o void_both profile.cube|void_both.cubex"
  "remap2_profile_remapping|cube_remap2 -r remapping.spec -o profile_remap_rs profile.cube|profile_remap_rs.cubex"
  "remap2_summary_scalasca|cube_remap2 -r scalasca.spec -o remap_summary summary.cubex|remap_summary.cubex"
  "remap2_time_embedded|cube_remap2 -o remap_time_p4 time_p4.cubex|remap_time_p4.cubex"
  "derive_post_blast|cube_derive -t postderived -e 'metric::time(i)/metric::visits(e)' time_per_visit blast.cubex -o derive_post_blast|derive_post_blast.cubex"
  "derive_pre_excl_time_p4|cube_derive -t prederived -r exclusive -e 'metric::time(e)*2' time2 time_p4.cubex -o derive_pre_excl|derive_pre_excl.cubex"
  "derive_pre_incl_x1|cube_derive -t prederived -r inclusive -e 'metric::time(i)*1000' time_ms x1.cubex -o derive_pre_incl|derive_pre_incl.cubex"
  "derive_real_ctt|cube_derive -r exclusive -e 'metric::time(e)/metric::visits(e)' avg_time ctt.cubex -o derive_real_ctt|derive_real_ctt.cubex"
  "cube3to4_profile|cube3to4 -o c34_profile profile.cube|c34_profile.cubex"
  "cube3to4_trace|cube3to4 -o c34_trace trace.cube|c34_trace.cubex"
  "cube3to4_test0|cube3to4 -o c34_test0 test0.cube|c34_test0.cubex"
  "cube3to4_template|cube3to4 -o c34_template template.cube|c34_template.cubex"
  "diff_x1_x10|cube_diff -o diff_x1_x10 x1.cubex x10.cubex|diff_x1_x10.cubex"
  "diff_C_x1_x10|cube_diff -C -o diff_C_x1_x10 x1.cubex x10.cubex|diff_C_x1_x10.cubex"
  "diff_c_blast_time_p4|cube_diff -c -o diff_c_bt blast.cubex time_p4.cubex|diff_c_bt.cubex"
  "merge_f1_f2|cube_merge -o merge_f1_f2 f1.cubex f2.cubex|merge_f1_f2.cubex"
  "merge_C_blast_time_p4|cube_merge -C -o merge_C_bt blast.cubex time_p4.cubex|merge_C_bt.cubex"
  "mean_x1_x10|cube_mean -o mean_x1_x10 x1.cubex x10.cubex|mean_x1_x10.cubex"
  "mean_c_x1_x10|cube_mean -c -o mean_c_x1_x10 x1.cubex x10.cubex|mean_c_x1_x10.cubex"
  "cut_p_summary|cube_cut -p x_solve_ -o cut_p_summary summary.cubex|cut_p_summary.cubex"
  "cut_r_time_p4|cube_cut -r main -o cut_r_time_p4 time_p4.cubex|cut_r_time_p4.cubex"
  "clean_profile|cube_clean -o clean_profile profile.cube|clean_profile.cubex"
  "part_blast|cube_part -R 0-7 -o part_blast blast.cubex|part_blast.cubex"
  "canonize_ctt|cube_canonize -p -m 12 -f -l ctt.cubex canonize_ctt|canonize_ctt.cubex"
  "exclusify_x1|cube_exclusify -o excl_x1 x1.cubex|excl_x1_excl.cubex"
  "inclusify_summary|cube_inclusify -o incl_summary summary.cubex|incl_summary_incl.cubex"
  "peri_blast|cubekit export-peri -o blast.xml blast.cubex && cubekit import-peri -o peri_blast.cubex blast.xml|peri_blast.cubex"
  "peri_summary|cubekit export-peri -o summary.xml summary.cubex && cubekit import-peri -o peri_summary.cubex summary.xml|peri_summary.cubex"
  "peri_profile|cubekit export-peri -o profile.xml profile.cube && cubekit import-peri -o peri_profile.cubex profile.xml|peri_profile.cubex"
  "model_scale_func|cubekit generate --series series --law 'main:time=2+3*p^1.5' --law 'main/solve:time=1+4*p^2' --law 'main/solve:visits=7+5*p*log2(p)' --points p=2,4,8,16,32 --repetitions 2 --noise 0.02 && cubekit model series -o model.cubex|model.cubex"
  "commoncalltree_f1_f2|cube_commoncalltree ./f1.cubex ./f2.cubex|f1_commoncalltree.cubex f2_commoncalltree.cubex"
  "commoncalltree_summary_cut|cube_cut -p x_solve_ -o summary_cut summary.cubex >/dev/null && cube_commoncalltree ./summary.cubex ./summary_cut.cubex|summary_commoncalltree.cubex summary_cut_commoncalltree.cubex"
)
dumps=("w|-w" "incl_aggr|-m all -z incl -t aggr" "excl_aggr|-m all -z excl -t aggr"
  "incl_csv2|-m all -z incl -s csv2")

# Dumps on which the original crashes whoever wrote the report (checked on reports CubeLib
# wrote itself), each with the reason; they are listed, not counted as failures.
gpu_defect="CubeLib's cube_dump crashes on per-location values of any location of type gpu, also on reports it wrote itself (cube_clean of this one); the aggregated dumps agree"
declare -A original_defect=(
  [generate_gpus:incl_csv2]=$gpu_defect
  [generate_gpus_compress:incl_csv2]=$gpu_defect
)

same=0 differ=0 failed=0 defects=0
for entry in "${cases[@]}"; do
  IFS='|' read -r name command reports <<<"$entry"
  [ -n "$pattern" ] && [[ $name != *$pattern* ]] && continue
  if ! (cd "$work" && PATH="$our_bin:$PATH" bash -c "$command") >"$work/$name.write.log" 2>&1; then
    echo "FAILED   $name: cubekit could not write it (see $name.write.log)"
    failed=$((failed + 1))
    continue
  fi
  for report in $reports; do
    for d in "${dumps[@]}"; do
      IFS='|' read -r tag options <<<"$d"
      base=$work/$report.$tag
      # shellcheck disable=SC2086 # the options are words
      (cd "$work" && "$ref_bin/cube_dump" $options "$report") >"$base.ref" 2>"$base.ref.err"
      ref_rc=$?
      # shellcheck disable=SC2086
      (cd "$work" && "$our_bin/cube_dump" $options "$report") >"$base.our" 2>"$base.our.err"
      our_rc=$?
      if [ $ref_rc -ne 0 ] && [ -n "${original_defect[$name:$tag]:-}" ]; then
        echo "ORIGINAL $name $tag: ${original_defect[$name:$tag]}"
        defects=$((defects + 1))
      elif [ $ref_rc -ne 0 ]; then
        echo "FAILED   $name $tag: CubeLib's cube_dump exits $ref_rc: $(head -c 200 "$base.ref.err")"
        failed=$((failed + 1))
      elif [ $our_rc -ne 0 ] || ! cmp -s "$base.ref" "$base.our"; then
        echo "DIFFERS  $name $tag ($(diff -a "$base.ref" "$base.our" | grep -c '^[<>]') lines; rc $our_rc)"
        differ=$((differ + 1))
      else
        echo "same     $name $tag"
        same=$((same + 1))
      fi
    done
  done
done
echo "reference_check: $same same, $differ differ, $failed failed, $defects where the original" \
  "crashes on its own reports too (CubeLib: $ref_bin)"
[ $differ -eq 0 ] && [ $failed -eq 0 ]
