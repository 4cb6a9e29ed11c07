# Scenarios run on the build machine itself, which has no RDMA device (and
# usually no RDMA kernel support): the error paths must match upstream's.
# Sourced by runner.sh via `abi-tests/run-scenarios host`; format as in vm.sh.
compare ibv_devices 'ibv_devices'
compare ibv_devinfo 'ibv_devinfo'

# ---- librdmacm without RDMA ----------------------------------------------------
# No RDMA device: librdmacm's first use fails with ENODEV. The example programs
# print "No RDMA devices were detected" (rping exits with errno, 19; the others
# with 1). rdma_getaddrinfo fails the same way underneath and rdma_server /
# rdma_client print its gai_strerror ("Bad value for ai_flags", exit 255).
# --timeout: a library that waited for a device instead would hang here.
compare rping_server --timeout 20 'rping -s'
compare rping_client_loopback --timeout 20 'rping -c -a 127.0.0.1'
compare rping_persistent_server --timeout 20 'rping -s -P -v'
compare ucmatose_server --timeout 20 'ucmatose'
compare udaddy_client --timeout 20 'udaddy -s 127.0.0.1'
compare cmtime_client --timeout 20 'cmtime -s 127.0.0.1 -c 1'
compare mckey_receiver --timeout 20 'mckey -m 239.1.1.1'
compare rdma_server --timeout 20 'rdma_server'
compare rdma_client --timeout 20 'rdma_client -s 127.0.0.1'
