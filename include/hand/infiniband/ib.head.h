/*
 * The InfiniBand address family. glibc's <sys/socket.h> has it too (as
 * PF_IB 27, AF_IB PF_IB), so each name is defined only when missing.
 */
#ifndef AF_IB
#define AF_IB 27
#endif
#ifndef PF_IB
#define PF_IB AF_IB
#endif
