/*
 * xfer_stream.h: the byte stream that tcp_xfer.c and epoll_xfer.c send and
 * check: a deterministic, position-dependent pattern (a 64-bit mix of the
 * 8-byte word's index), and an FNV-1a checksum over what was received.
 */
#ifndef XFER_STREAM_H
#define XFER_STREAM_H
#include <stddef.h>
#include <stdint.h>

static inline uint64_t word_at(uint64_t idx)
{
	uint64_t x = idx * 6364136223846793005ULL + 1442695040888963407ULL;
	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 32;
	return x;
}

static inline void fill(unsigned char *buf, uint64_t pos, size_t len)
{
	uint64_t w = word_at(pos / 8);

	for (size_t i = 0; i < len; i++, pos++) {
		if (pos % 8 == 0)
			w = word_at(pos / 8);
		buf[i] = (unsigned char)(w >> (8 * (pos % 8)));
	}
}

static inline uint64_t fnv(uint64_t h, const unsigned char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		h ^= buf[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_INIT 0xcbf29ce484222325ULL

#endif
