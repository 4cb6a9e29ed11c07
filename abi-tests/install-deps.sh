#!/usr/bin/env bash
# install-deps.sh: install the Debian 12 packages the build and the tests need,
# skipping what is already installed (so it is cheap to call every time).
#
#   abi-tests/install-deps.sh          everything (build, ABI tests, VM)
#   abi-tests/install-deps.sh --vm     only what abi-tests/vm/vm-run needs
#   abi-tests/install-deps.sh --pkgs PKG...
#                                      only these (abi-tests/vm/build-image: the
#                                      kernel headers and source for siw.ko)
#
# Needs root (apt-get) only when something is missing.
set -euo pipefail

# valgrind: the threaded stress scenario runs under memcheck. python3-pyverbs:
# the pyverbs import test (host) and the pyverbs_rxe0 scenario (the VM runs
# the host's /usr). make: abi-tests/vm/build-image builds siw.ko (soft-iWARP).
vm_pkgs=(qemu-system-x86 busybox-static cpio kmod iproute2 rdma-core ibverbs-utils
         rdmacm-utils perftest ibverbs-providers valgrind python3-pyverbs ucx-utils
         openmpi-bin python3-mpi4py libfabric-bin make)
# libibverbs-dev/librdmacm-dev: the reference headers and libraries we compare
# against; debootstrap: the Debian 13 and sid userlands (vm/build-userland); binutils: readelf for the symbol tests; gcc: Rust's linker driver
# and the C shim; g++: the header checks build their programs as C++ too
# (applications include verbs.h from C++); python3-pyelftools:
# abi-tests/headers/compare reads the DWARF of the header sets it compares;
# pkgconf: the C programs of abi-tests are built against our include/ and
# libraries through our .pc files (vm-progs/cprog, headers/build-against-ours).
# dpkg-dev, lintian, rpm: packaging/build-deb (dpkg-gensymbols,
# dpkg-shlibdeps), its lintian check, packaging/build-rpm (rpmbuild);
# dpkg-repack: packaging/test-packages, for a distribution package the
# mirror no longer has.
build_pkgs=(libibverbs-dev librdmacm-dev binutils gcc g++ libc6-dev diffutils xz-utils
            ca-certificates curl git debootstrap python3-pyelftools pkgconf
            dpkg-dev lintian rpm dpkg-repack)

case "${1:-}" in
  --vm) pkgs=("${vm_pkgs[@]}") ;;
  --pkgs) [[ $# -ge 2 ]] || { echo "usage: $0 --pkgs PKG..." >&2; exit 2; }
          pkgs=("${@:2}") ;;
  "") pkgs=("${vm_pkgs[@]}" "${build_pkgs[@]}") ;;
  *) echo "usage: $0 [--vm | --pkgs PKG...]" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) != 0 ]]; then
  echo "install-deps: missing Debian packages: ${missing[*]}" >&2
  echo "install-deps: run as root: apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
