# Scenario list for harness_selftest.rs: pair --race (runner.sh). The
# "client" prints the race's line and fails, always or only on its first run
# (a flag file under SCEN_OUT marks that it ran), or fails another way.
flag=$SCEN_OUT/race-once.flag
rm -f "$flag"
pair race_lost_once --race '^lost the race$' --combos ours:upstream 'sleep 0.2' \
  "bash -c 'if [ -e $flag ]; then echo done; else touch $flag; echo \"lost the race\" >&2; exit 3; fi'"
pair race_lost_always --race '^lost the race$' --combos ours:upstream 'sleep 0.2' \
  "bash -c 'echo \"lost the race\" >&2; exit 3'"
pair race_other_failure --race '^lost the race$' --combos ours:upstream 'sleep 0.2' \
  "bash -c 'echo \"something else\" >&2; exit 3'"
