# Scenarios run on the build machine itself, which has no RDMA device (and
# usually no RDMA kernel support): the error paths must match upstream's.
# Sourced by runner.sh via `abi-tests/run-scenarios host`; format as in vm.sh.
compare ibv_devices 'ibv_devices'
compare ibv_devinfo 'ibv_devinfo'
