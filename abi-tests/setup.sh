#!/usr/bin/env bash
# setup.sh: prepare a Debian 12 machine for building and testing, as root.
#
#   abi-tests/setup.sh
#
# Installs the Debian packages (abi-tests/install-deps.sh), Rust through
# rustup when no cargo >= 1.80 is on PATH (Debian 12's own is too old), and
# builds the Soft-RoCE VM's kernel and initramfs (abi-tests/vm/build-image).
# Safe to run again: it skips what is already there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

"$here/install-deps.sh"

[[ -d $HOME/.cargo/bin ]] && PATH=$HOME/.cargo/bin:$PATH
rust_ok() {
  command -v rustc >/dev/null && command -v cargo >/dev/null || return 1
  local v; v=$(rustc --version | awk '{print $2}')
  [[ $(printf '%s\n' 1.80.0 "$v" | sort -V | head -1) = 1.80.0 ]]
}
if ! rust_ok; then
  echo "setup: installing Rust (stable) with rustup into ~/.cargo" >&2
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
  PATH=$HOME/.cargo/bin:$PATH
fi
echo "setup: $(cargo --version)" >&2

echo "setup: preparing the Soft-RoCE VM image" >&2
"$here/vm/build-image" >/dev/null
echo "setup: done" >&2
