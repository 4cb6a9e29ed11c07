# Scenario list for harness_selftest.rs: which pairings each tier runs
# (SCEN_TIER), what --list says of them, and claims shared by several VMs.
pair tier_plain 'sleep 0.1' 'echo plain'
pair tier_mixed --mixed 'what mixing catches' 'sleep 0.1' 'echo mixed'
compare tier_compare 'echo compare'
