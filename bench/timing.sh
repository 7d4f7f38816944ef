# Sourced by the bench scripts: timing of whole programs.
#
# best_of N CMD...: runs CMD N times with stdout discarded and prints
#   "<best wall s> <peak RSS KiB of that run> <least CPU s (user + sys)>".
# The best wall time is kept (the file is then in the page cache: this measures decoding, not
# the disk). Wall time comes from bash's EPOCHREALTIME around the run (microseconds;
# /usr/bin/time's %e has only 10 ms resolution), peak RSS from /usr/bin/time -f %M. CPU time is
# printed too because on a shared machine the wall time includes waiting for a core;
# /usr/bin/time reports it in 10 ms steps.
best_of() {
  local runs=$1
  shift
  local best="" rss=0 cpu="" t0 t1 secs kib c time_file
  time_file=$(mktemp)
  for ((i = 0; i < runs; ++i)); do
    t0=$EPOCHREALTIME
    if command -v /usr/bin/time >/dev/null; then
      /usr/bin/time -f '%M %U %S' -o "$time_file" "$@" >/dev/null
    else
      "$@" >/dev/null
      echo 0 0 0 >"$time_file"
    fi
    t1=$EPOCHREALTIME
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
    read -r kib c < <(tail -1 "$time_file" | awk '{ printf "%d %.2f\n", $1, $2 + $3 }')
    if [[ -z $best ]] || awk -v s="$secs" -v b="$best" 'BEGIN { exit !(s < b) }'; then
      best=$secs
      rss=$kib
    fi
    if [[ -z $cpu ]] || awk -v s="$c" -v b="$cpu" 'BEGIN { exit !(s < b) }'; then cpu=$c; fi
  done
  rm -f "$time_file"
  echo "$best $rss $cpu"
}
