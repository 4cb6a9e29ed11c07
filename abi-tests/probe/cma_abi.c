/*
 * Layout probe for rdma-abi/src/cma.rs: prints, from the installed
 * <rdma/rdma_cma.h> and <infiniband/ib.h>, the facts gen.py turns into
 * rdma-abi/src/layout/cma.rs, one a line (see gen.py). Members C leaves
 * unnamed are printed under the Rust names cma.rs gives them (src, dst: the
 * unions of struct rdma_addr). Run by run-rdmacm.sh.
 */
#include <stddef.h>
#include <stdio.h>
#include <rdma/rdma_cma.h>
#include <infiniband/ib.h>

#define BEGIN(t) printf("S %s %zu %zu\n", #t, sizeof(struct t), _Alignof(struct t))
#define F(t, f) printf("F %s %s %zu\n", #t, #f, offsetof(struct t, f))
#define FN(t, rust, f) printf("F %s %s %zu\n", #t, rust, offsetof(struct t, f))
#define K(n) printf("C %s %lld\n", #n, (long long)(n))
#define KU(n) printf("C %s %llu\n", #n, (unsigned long long)(n))

int main(void)
{
	BEGIN(ib_addr); F(ib_addr, ib_u);
	BEGIN(sockaddr_ib); F(sockaddr_ib, sib_family); F(sockaddr_ib, sib_pkey); F(sockaddr_ib, sib_flowinfo); F(sockaddr_ib, sib_addr); F(sockaddr_ib, sib_sid); F(sockaddr_ib, sib_sid_mask); F(sockaddr_ib, sib_scope_id);
	BEGIN(rdma_ib_addr); F(rdma_ib_addr, sgid); F(rdma_ib_addr, dgid); F(rdma_ib_addr, pkey);
	BEGIN(rdma_addr); FN(rdma_addr, "src", src_addr); FN(rdma_addr, "dst", dst_addr); F(rdma_addr, addr);
	BEGIN(rdma_route); F(rdma_route, addr); F(rdma_route, path_rec); F(rdma_route, num_paths);
	BEGIN(rdma_event_channel); F(rdma_event_channel, fd);
	BEGIN(rdma_cm_id); F(rdma_cm_id, verbs); F(rdma_cm_id, channel); F(rdma_cm_id, context); F(rdma_cm_id, qp); F(rdma_cm_id, route); F(rdma_cm_id, ps); F(rdma_cm_id, port_num); F(rdma_cm_id, event); F(rdma_cm_id, send_cq_channel); F(rdma_cm_id, send_cq); F(rdma_cm_id, recv_cq_channel); F(rdma_cm_id, recv_cq); F(rdma_cm_id, srq); F(rdma_cm_id, pd); F(rdma_cm_id, qp_type);
	BEGIN(rdma_conn_param); F(rdma_conn_param, private_data); F(rdma_conn_param, private_data_len); F(rdma_conn_param, responder_resources); F(rdma_conn_param, initiator_depth); F(rdma_conn_param, flow_control); F(rdma_conn_param, retry_count); F(rdma_conn_param, rnr_retry_count); F(rdma_conn_param, srq); F(rdma_conn_param, qp_num);
	BEGIN(rdma_ud_param); F(rdma_ud_param, private_data); F(rdma_ud_param, private_data_len); F(rdma_ud_param, ah_attr); F(rdma_ud_param, qp_num); F(rdma_ud_param, qkey);
	BEGIN(rdma_cm_event); F(rdma_cm_event, id); F(rdma_cm_event, listen_id); F(rdma_cm_event, event); F(rdma_cm_event, status); F(rdma_cm_event, param);
	BEGIN(rdma_addrinfo); F(rdma_addrinfo, ai_flags); F(rdma_addrinfo, ai_family); F(rdma_addrinfo, ai_qp_type); F(rdma_addrinfo, ai_port_space); F(rdma_addrinfo, ai_src_len); F(rdma_addrinfo, ai_dst_len); F(rdma_addrinfo, ai_src_addr); F(rdma_addrinfo, ai_dst_addr); F(rdma_addrinfo, ai_src_canonname); F(rdma_addrinfo, ai_dst_canonname); F(rdma_addrinfo, ai_route_len); F(rdma_addrinfo, ai_route); F(rdma_addrinfo, ai_connect_len); F(rdma_addrinfo, ai_connect); F(rdma_addrinfo, ai_next);
	BEGIN(rdma_cm_join_mc_attr_ex); F(rdma_cm_join_mc_attr_ex, comp_mask); F(rdma_cm_join_mc_attr_ex, join_flags); F(rdma_cm_join_mc_attr_ex, addr);
	printf("S rdma_addr_src %zu %zu\n", sizeof(((struct rdma_addr *)0)->src_storage), _Alignof(struct sockaddr_storage));
	printf("S rdma_addr_addr %zu %zu\n", sizeof(((struct rdma_addr *)0)->addr), _Alignof(__typeof__(((struct rdma_addr *)0)->addr)));
	printf("S rdma_cm_event_param %zu %zu\n", sizeof(((struct rdma_cm_event *)0)->param), _Alignof(__typeof__(((struct rdma_cm_event *)0)->param)));

	K(AF_IB); K(RDMA_CM_EVENT_ADDR_RESOLVED); K(RDMA_CM_EVENT_CONNECT_REQUEST); K(RDMA_CM_EVENT_ESTABLISHED);
	K(RDMA_CM_EVENT_DEVICE_REMOVAL); K(RDMA_CM_EVENT_MULTICAST_JOIN); K(RDMA_CM_EVENT_TIMEWAIT_EXIT);
	K(RDMA_PS_IPOIB); K(RDMA_PS_TCP); K(RDMA_PS_UDP); K(RDMA_PS_IB);
	KU(RDMA_IB_IP_PS_MASK); KU(RDMA_IB_IP_PORT_MASK); KU(RDMA_IB_IP_PS_TCP); KU(RDMA_IB_IP_PS_UDP); KU(RDMA_IB_PS_IB);
	K(RDMA_UDP_QKEY); K(RDMA_MAX_RESP_RES); K(RDMA_MAX_INIT_DEPTH);
	K(RAI_PASSIVE); K(RAI_NUMERICHOST); K(RAI_NOROUTE); K(RAI_FAMILY);
	K(RDMA_CM_JOIN_MC_ATTR_ADDRESS); K(RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS); K(RDMA_CM_JOIN_MC_ATTR_RESERVED);
	K(RDMA_MC_JOIN_FLAG_FULLMEMBER); K(RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER); K(RDMA_MC_JOIN_FLAG_RESERVED);
	K(RDMA_OPTION_ID); K(RDMA_OPTION_IB); K(RDMA_OPTION_ID_TOS); K(RDMA_OPTION_ID_REUSEADDR);
	K(RDMA_OPTION_ID_AFONLY); K(RDMA_OPTION_ID_ACK_TIMEOUT); K(RDMA_OPTION_IB_PATH);
	return 0;
}
