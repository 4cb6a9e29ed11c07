/*
 * fork-callgrind: instructions per call of ibv_dontfork_range /
 * ibv_dofork_range, counted by valgrind (deterministic whatever the host's
 * load), on fork-bench's layout: N single-page ranges on the odd pages of
 * one mapping, registered in random order. One warm-up round, then ROUNDS
 * rounds of: K bare madvise DOFORK/DONTFORK (floor_*), K non-nested calls
 * 1 -> 0 -> 1 (nn_*), N nested calls 1 -> 2 -> 1 (nested_*). Each phase is
 * its own function, so callgrind_annotate --inclusive=yes gives its cost;
 * divide by K * ROUNDS or N * ROUNDS. See docs/benchmarks.md, "Fork ranges".
 *
 *   cc -O2 -g -o fork-callgrind fork-callgrind.c -libverbs
 *   [LD_LIBRARY_PATH=target/release] valgrind --tool=callgrind \
 *       --cache-sim=yes --branch-sim=yes ./fork-callgrind 20000 3
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <infiniband/verbs.h>
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);
static uint64_t st = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void){uint64_t x=st;x^=x>>12;x^=x<<25;x^=x>>27;st=x;return x*0x2545f4914f6cdd1dull;}
static void shuffle(char **v,size_t n){for(size_t i=n-1;i>0;i--){size_t j=rnd()%(i+1);char*t=v[i];v[i]=v[j];v[j]=t;}}
static long ps; static size_t n, k; static char **live;
#define PH(name, body) __attribute__((noinline)) void name(void){ for(size_t i=0;i<(k);i++){ if(body) abort(); } } __attribute__((noinline)) void warm_##name(void){ for(size_t i=0;i<(k);i++){ if(body) abort(); } }
#define PHN(name, body) __attribute__((noinline)) void name(void){ for(size_t i=0;i<(n);i++){ if(body) abort(); } } __attribute__((noinline)) void warm_##name(void){ for(size_t i=0;i<(n);i++){ if(body) abort(); } }
PH(floor_dofork, madvise(live[i], ps, MADV_DOFORK))
PH(floor_dontfork, madvise(live[i], ps, MADV_DONTFORK))
PH(nn_dofork, ibv_dofork_range(live[i], ps))
PH(nn_dontfork, ibv_dontfork_range(live[i], ps))
PHN(nested_dontfork, ibv_dontfork_range(live[i], ps))
PHN(nested_dofork, ibv_dofork_range(live[i], ps))
int main(int argc,char**argv){
  n = argc>1? strtoul(argv[1],0,0):20000; int rounds = argc>2? atoi(argv[2]):3;
  ps = sysconf(_SC_PAGESIZE); k = n/10<2000? n/10:2000;
  if (ibv_fork_init()) abort();
  char *m = mmap(NULL,(2*n+1)*ps,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE,-1,0);
  live = malloc(n*sizeof(*live));
  for(size_t i=0;i<n;i++) live[i]=m+(2*i+1)*ps;
  shuffle(live,n);
  for(size_t i=0;i<n;i++) if(ibv_dontfork_range(live[i],ps)) abort();
  /* one warm-up round, not counted (the bench takes medians over 7) */
  shuffle(live,n); warm_floor_dofork(); warm_floor_dontfork();
  shuffle(live,n); warm_nn_dofork(); warm_nn_dontfork();
  shuffle(live,n); warm_nested_dontfork(); shuffle(live,n); warm_nested_dofork();
  for(int r=0;r<rounds;r++){
    shuffle(live,n); floor_dofork(); floor_dontfork();
    shuffle(live,n); nn_dofork(); nn_dontfork();
    shuffle(live,n); nested_dontfork(); shuffle(live,n); nested_dofork();
  }
  printf("k %zu n %zu rounds %d\n",k,n,rounds);
  return 0;
}
