/*
 * Layout probe for rdma-abi/src/ucma.rs: prints, from the installed kernel
 * header <rdma/rdma_user_cm.h> and librdmacm's <rdma/rdma_cma_abi.h> (whose
 * ucma_abi_* commands are the kernel structs behind an 8-byte header), the
 * facts gen.py turns into rdma-abi/src/layout/ucma.rs, one a line (see
 * gen.py). Run by run-rdmacm.sh.
 */
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <rdma/rdma_user_cm.h>
#include <rdma/rdma_cma_abi.h>

#define BEGIN(t) printf("S %s %zu %zu\n", #t, sizeof(struct t), _Alignof(struct t))
#define F(t, f) printf("F %s %s %zu\n", #t, #f, offsetof(struct t, f))
#define FN(t, rust, f) printf("F %s %s %zu\n", #t, rust, offsetof(struct t, f))
/* A command as written: rdma-core's header+body struct, measured by size. */
#define CMD(rust, c) printf("Z ucma_cmd<%s> %zu\n", #rust, sizeof(struct c))
#define K(n) printf("C %s %lld\n", #n, (long long)(n))

int main(void)
{
	BEGIN(rdma_ucm_cmd_hdr); F(rdma_ucm_cmd_hdr, cmd); FN(rdma_ucm_cmd_hdr, "in_", in); F(rdma_ucm_cmd_hdr, out);
	BEGIN(rdma_ucm_create_id); F(rdma_ucm_create_id, uid); F(rdma_ucm_create_id, response); F(rdma_ucm_create_id, ps); F(rdma_ucm_create_id, qp_type); F(rdma_ucm_create_id, reserved);
	BEGIN(rdma_ucm_create_id_resp); F(rdma_ucm_create_id_resp, id);
	BEGIN(rdma_ucm_destroy_id); F(rdma_ucm_destroy_id, response); F(rdma_ucm_destroy_id, id); F(rdma_ucm_destroy_id, reserved);
	BEGIN(rdma_ucm_destroy_id_resp); F(rdma_ucm_destroy_id_resp, events_reported);
	BEGIN(rdma_ucm_bind_ip); F(rdma_ucm_bind_ip, response); F(rdma_ucm_bind_ip, addr); F(rdma_ucm_bind_ip, id);
	BEGIN(rdma_ucm_bind); F(rdma_ucm_bind, id); F(rdma_ucm_bind, addr_size); F(rdma_ucm_bind, reserved); F(rdma_ucm_bind, addr);
	BEGIN(rdma_ucm_resolve_ip); F(rdma_ucm_resolve_ip, src_addr); F(rdma_ucm_resolve_ip, dst_addr); F(rdma_ucm_resolve_ip, id); F(rdma_ucm_resolve_ip, timeout_ms);
	BEGIN(rdma_ucm_resolve_addr); F(rdma_ucm_resolve_addr, id); F(rdma_ucm_resolve_addr, timeout_ms); F(rdma_ucm_resolve_addr, src_size); F(rdma_ucm_resolve_addr, dst_size); F(rdma_ucm_resolve_addr, reserved); F(rdma_ucm_resolve_addr, src_addr); F(rdma_ucm_resolve_addr, dst_addr);
	BEGIN(rdma_ucm_resolve_route); F(rdma_ucm_resolve_route, id); F(rdma_ucm_resolve_route, timeout_ms);
	BEGIN(rdma_ucm_query); F(rdma_ucm_query, response); F(rdma_ucm_query, id); F(rdma_ucm_query, option);
	BEGIN(rdma_ucm_query_route_resp); F(rdma_ucm_query_route_resp, node_guid); F(rdma_ucm_query_route_resp, ib_route); F(rdma_ucm_query_route_resp, src_addr); F(rdma_ucm_query_route_resp, dst_addr); F(rdma_ucm_query_route_resp, num_paths); F(rdma_ucm_query_route_resp, port_num); F(rdma_ucm_query_route_resp, reserved); F(rdma_ucm_query_route_resp, ibdev_index); F(rdma_ucm_query_route_resp, reserved1);
	BEGIN(rdma_ucm_query_addr_resp); F(rdma_ucm_query_addr_resp, node_guid); F(rdma_ucm_query_addr_resp, port_num); F(rdma_ucm_query_addr_resp, reserved); F(rdma_ucm_query_addr_resp, pkey); F(rdma_ucm_query_addr_resp, src_size); F(rdma_ucm_query_addr_resp, dst_size); F(rdma_ucm_query_addr_resp, src_addr); F(rdma_ucm_query_addr_resp, dst_addr); F(rdma_ucm_query_addr_resp, ibdev_index); F(rdma_ucm_query_addr_resp, reserved1);
	BEGIN(rdma_ucm_query_path_resp); F(rdma_ucm_query_path_resp, num_paths); F(rdma_ucm_query_path_resp, reserved); F(rdma_ucm_query_path_resp, path_data);
	BEGIN(rdma_ucm_conn_param); F(rdma_ucm_conn_param, qp_num); F(rdma_ucm_conn_param, qkey); F(rdma_ucm_conn_param, private_data); F(rdma_ucm_conn_param, private_data_len); F(rdma_ucm_conn_param, srq); F(rdma_ucm_conn_param, responder_resources); F(rdma_ucm_conn_param, initiator_depth); F(rdma_ucm_conn_param, flow_control); F(rdma_ucm_conn_param, retry_count); F(rdma_ucm_conn_param, rnr_retry_count); F(rdma_ucm_conn_param, valid);
	BEGIN(rdma_ucm_ud_param); F(rdma_ucm_ud_param, qp_num); F(rdma_ucm_ud_param, qkey); F(rdma_ucm_ud_param, ah_attr); F(rdma_ucm_ud_param, private_data); F(rdma_ucm_ud_param, private_data_len); F(rdma_ucm_ud_param, reserved);
	BEGIN(rdma_ucm_ece); F(rdma_ucm_ece, vendor_id); F(rdma_ucm_ece, attr_mod);
	BEGIN(rdma_ucm_connect); F(rdma_ucm_connect, conn_param); F(rdma_ucm_connect, id); F(rdma_ucm_connect, reserved); F(rdma_ucm_connect, ece);
	BEGIN(rdma_ucm_listen); F(rdma_ucm_listen, id); F(rdma_ucm_listen, backlog);
	BEGIN(rdma_ucm_accept); F(rdma_ucm_accept, uid); F(rdma_ucm_accept, conn_param); F(rdma_ucm_accept, id); F(rdma_ucm_accept, reserved); F(rdma_ucm_accept, ece);
	BEGIN(rdma_ucm_reject); F(rdma_ucm_reject, id); F(rdma_ucm_reject, private_data_len); F(rdma_ucm_reject, reason); F(rdma_ucm_reject, reserved); F(rdma_ucm_reject, private_data);
	BEGIN(rdma_ucm_disconnect); F(rdma_ucm_disconnect, id);
	BEGIN(rdma_ucm_init_qp_attr); F(rdma_ucm_init_qp_attr, response); F(rdma_ucm_init_qp_attr, id); F(rdma_ucm_init_qp_attr, qp_state);
	BEGIN(rdma_ucm_notify); F(rdma_ucm_notify, id); F(rdma_ucm_notify, event);
	BEGIN(rdma_ucm_join_ip_mcast); F(rdma_ucm_join_ip_mcast, response); F(rdma_ucm_join_ip_mcast, uid); F(rdma_ucm_join_ip_mcast, addr); F(rdma_ucm_join_ip_mcast, id);
	BEGIN(rdma_ucm_join_mcast); F(rdma_ucm_join_mcast, response); F(rdma_ucm_join_mcast, uid); F(rdma_ucm_join_mcast, id); F(rdma_ucm_join_mcast, addr_size); F(rdma_ucm_join_mcast, join_flags); F(rdma_ucm_join_mcast, addr);
	BEGIN(rdma_ucm_get_event); F(rdma_ucm_get_event, response);
	BEGIN(rdma_ucm_event_resp); F(rdma_ucm_event_resp, uid); F(rdma_ucm_event_resp, id); F(rdma_ucm_event_resp, event); F(rdma_ucm_event_resp, status); F(rdma_ucm_event_resp, param); F(rdma_ucm_event_resp, reserved); F(rdma_ucm_event_resp, ece);
	BEGIN(rdma_ucm_set_option); F(rdma_ucm_set_option, optval); F(rdma_ucm_set_option, id); F(rdma_ucm_set_option, level); F(rdma_ucm_set_option, optname); F(rdma_ucm_set_option, optlen);
	BEGIN(rdma_ucm_migrate_id); F(rdma_ucm_migrate_id, response); F(rdma_ucm_migrate_id, id); F(rdma_ucm_migrate_id, fd);
	BEGIN(rdma_ucm_migrate_resp); F(rdma_ucm_migrate_resp, events_reported);

	CMD(rdma_ucm_create_id, ucma_abi_create_id);
	CMD(rdma_ucm_destroy_id, ucma_abi_destroy_id);
	CMD(rdma_ucm_bind_ip, ucma_abi_bind_ip);
	CMD(rdma_ucm_bind, ucma_abi_bind);
	CMD(rdma_ucm_resolve_ip, ucma_abi_resolve_ip);
	CMD(rdma_ucm_resolve_addr, ucma_abi_resolve_addr);
	CMD(rdma_ucm_resolve_route, ucma_abi_resolve_route);
	CMD(rdma_ucm_query, ucma_abi_query);
	CMD(rdma_ucm_connect, ucma_abi_connect);
	CMD(rdma_ucm_listen, ucma_abi_listen);
	CMD(rdma_ucm_accept, ucma_abi_accept);
	CMD(rdma_ucm_reject, ucma_abi_reject);
	CMD(rdma_ucm_disconnect, ucma_abi_disconnect);
	CMD(rdma_ucm_init_qp_attr, ucma_abi_init_qp_attr);
	CMD(rdma_ucm_notify, ucma_abi_notify);
	CMD(rdma_ucm_join_ip_mcast, ucma_abi_join_ip_mcast);
	CMD(rdma_ucm_join_mcast, ucma_abi_join_mcast);
	CMD(rdma_ucm_get_event, ucma_abi_get_event);
	CMD(rdma_ucm_set_option, ucma_abi_set_option);
	CMD(rdma_ucm_migrate_id, ucma_abi_migrate_id);
	printf("Z rdma_ucm_event_resp %zu\n", sizeof(struct ucma_abi_event_resp));

	K(RDMA_USER_CM_ABI_VERSION); K(RDMA_MAX_PRIVATE_DATA);
	K(RDMA_USER_CM_MIN_ABI_VERSION); K(RDMA_USER_CM_MAX_ABI_VERSION);
	K(RDMA_USER_CM_CMD_CREATE_ID); K(RDMA_USER_CM_CMD_JOIN_MCAST);
	K(RDMA_USER_CM_CMD_QUERY); K(RDMA_USER_CM_CMD_GET_EVENT);
	K(RDMA_USER_CM_QUERY_ADDR); K(RDMA_USER_CM_QUERY_PATH); K(RDMA_USER_CM_QUERY_GID);
	return 0;
}
