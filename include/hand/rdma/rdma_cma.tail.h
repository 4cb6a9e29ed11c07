/*
 * The addresses of an rdma_cm_id, as generic socket addresses: where the
 * id is bound (local) and where it is connected or resolved to (peer).
 * Both point into id->route.addr, so they live as long as the id.
 */
static inline struct sockaddr *rdma_get_local_addr(struct rdma_cm_id *id)
{
	return &id->route.addr.src_addr;
}

static inline struct sockaddr *rdma_get_peer_addr(struct rdma_cm_id *id)
{
	return &id->route.addr.dst_addr;
}
