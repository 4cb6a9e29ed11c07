/*
 * A deliberately WRONG libibverbs.so.1, for the harness self-test
 * (abi-tests/tests/harness_selftest.rs): it exports just what ibv_devices
 * imports, and ibv_get_device_list fails with EPERM where the real library
 * reports ENOSYS (no RDMA support) or lists devices. The scenario runner must
 * flag the difference.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

struct ibv_device;

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	if (num_devices)
		*num_devices = 0;
	errno = EPERM;
	return NULL;
}

void ibv_free_device_list(struct ibv_device **list)
{
	(void)list;
}

const char *ibv_get_device_name(struct ibv_device *device)
{
	(void)device;
	return "shim0";
}

uint64_t ibv_get_device_guid(struct ibv_device *device)
{
	(void)device;
	return 0;
}
