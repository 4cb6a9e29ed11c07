/* Built in the VM against the installed -dev packages with nothing but
 * `pkg-config --cflags --libs libibverbs librdmacm`: lists the RDMA devices,
 * opens the first and queries its port 1 through verbs.h's inline
 * ibv_query_port, and makes an RDMA CM event channel. Prints one line. */
#include <stdio.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

int main(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_port_attr port;
	struct rdma_event_channel *ch;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (!list || n < 1) {
		fprintf(stderr, "no RDMA device\n");
		return 1;
	}
	ctx = ibv_open_device(list[0]);
	if (!ctx) {
		perror("ibv_open_device");
		return 1;
	}
	if (ibv_query_port(ctx, 1, &port)) {
		perror("ibv_query_port");
		return 1;
	}
	ch = rdma_create_event_channel();
	if (!ch) {
		perror("rdma_create_event_channel");
		return 1;
	}
	printf("devices: %d, first %s, port 1 %s, event channel fd %s\n", n,
	       ibv_get_device_name(list[0]), ibv_port_state_str(port.state),
	       ch->fd >= 0 ? "open" : "bad");
	rdma_destroy_event_channel(ch);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
