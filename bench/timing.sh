# Sourced by the bench scripts: timing of whole programs.
#
# best_of N CMD...: runs CMD N times with stdout discarded and prints
#   "<best wall s> <peak RSS KiB of that run> <least CPU s (user + sys)>".
# The best wall time is kept (the file is then in the page cache: this measures decoding, not
# the disk). Wall time comes from bash's EPOCHREALTIME around the run (microseconds;
# /usr/bin/time's %e has only 10 ms resolution), peak RSS from /usr/bin/time -f %M. CPU time is
# printed too because on a shared machine the wall time includes waiting for a core; it comes
# from bash's `times` (the children's user + sys time, in 1 ms steps; /usr/bin/time's %U and %S
# have 10 ms steps, too coarse for a plain pass of 50 ms).
# The CPU seconds (user + sys) of this shell's waited-for children so far, into file $1 (`times`
# must run in this shell, not in a command substitution's subshell, which has no children).
children_cpu() {
  times >"$1"
  tail -1 "$1" | awk '{ for (i = 1; i <= 2; ++i) { split($i, p, "m"); sub("s", "", p[2]);
    t += p[1] * 60 + p[2] } printf "%.3f", t }' >"$1.sum"
}
best_of() {
  local runs=$1
  shift
  local best="" rss=0 cpu="" t0 t1 secs kib c c0 time_file
  time_file=$(mktemp)
  for ((i = 0; i < runs; ++i)); do
    children_cpu "$time_file.cpu"
    c0=$(<"$time_file.cpu.sum")
    t0=$EPOCHREALTIME
    if command -v /usr/bin/time >/dev/null; then
      /usr/bin/time -f '%M %U %S' -o "$time_file" "$@" >/dev/null
    else
      "$@" >/dev/null
      echo 0 0 0 >"$time_file"
    fi
    t1=$EPOCHREALTIME
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
    read -r kib _ < <(tail -1 "$time_file" | awk '{ printf "%d %.2f\n", $1, $2 + $3 }')
    children_cpu "$time_file.cpu"
    c=$(awk -v a="$c0" -v b="$(<"$time_file.cpu.sum")" 'BEGIN { printf "%.3f", b - a }')
    if [[ -z $best ]] || awk -v s="$secs" -v b="$best" 'BEGIN { exit !(s < b) }'; then
      best=$secs
      rss=$kib
    fi
    if [[ -z $cpu ]] || awk -v s="$c" -v b="$cpu" 'BEGIN { exit !(s < b) }'; then cpu=$c; fi
  done
  rm -f "$time_file" "$time_file.cpu" "$time_file.cpu.sum"
  echo "$best $rss $cpu"
}

# plain_pass N MMAP_SUM FILE: the plain pass the ratio scripts divide by, printed as best_of
#   prints it: the faster of `MMAP_SUM --map FILE` and `MMAP_SUM --read FILE` (bench/mmap_sum.cpp),
#   each the best of N runs. On a virtual machine that makes page table entries slowly, reading
#   a file can be 2-4 times as fast as mapping it; a ratio to the slower pass would flatter.
plain_pass() {
  local mapped read
  mapped=$(best_of "$1" "$2" --map "$3")
  read=$(best_of "$1" "$2" --read "$3")
  awk -v m="$mapped" -v r="$read" 'BEGIN { split(m, a, " "); split(r, b, " ")
    print (b[1] + 0 < a[1] + 0 ? r : m) }'
}
