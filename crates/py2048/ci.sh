#!/usr/bin/env bash
# Builds the py2048 wheel in a virtual environment and runs the pytest suite
# against the installed package (not the source folder). `cargo xtask ci`
# runs this after the Rust steps; it fails when pytest fails or collects no
# test at all (pytest's exit code 5).
#
# `ci.sh deps` only makes the venv and installs the dependencies (pip skips
# what is already there): `cargo xtask ci` runs it in the background while the
# Rust steps run, as torch alone takes minutes to fetch.
#
# Environment: PYTHON (default python3, >= 3.10), CARGO_TARGET_DIR (the venv
# and the wheel go under it, default <repo>/target), PY2048_PROFILE (the cargo
# profile of the wheel, default dev: the workspace's dev profile already
# optimises the engine, and a release build with LTO takes minutes longer;
# use release for speed measurements), PY2048_RL (0: without the RL extras,
# stable-baselines3, sb3-contrib and torch, whose tests are then skipped with
# a notice; `cargo xtask ci --no-rl` sets it; CI=true refuses it).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
venv="$target/py2048-venv"
wheels="$target/py2048-wheels"
profile="${PY2048_PROFILE:-dev}"
start=$SECONDS
requirements="$here/ci-requirements.txt"
if [[ "${PY2048_RL:-1}" == "0" ]]; then
    if [[ "${CI:-}" == "true" ]]; then
        echo "py2048: PY2048_RL=0 is for a developer's machine: CI runs every test" >&2
        exit 1
    fi
    requirements="$here/ci-requirements-core.txt"
fi

if [[ ! -x "$venv/bin/python" ]]; then
    echo "==> py2048: creating $venv"
    "${PYTHON:-python3}" -m venv "$venv"
fi
echo "==> py2048: installing the build and test dependencies ($(basename "$requirements"))"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r "$requirements"
if [[ "${1:-}" == "deps" ]]; then
    echo "==> py2048: dependencies ready in $((SECONDS - start)) s"
    exit 0
fi

echo "==> py2048: building the wheel (cargo profile $profile)"
rm -rf "$wheels"
PATH="$venv/bin:$PATH" "$venv/bin/maturin" build --quiet \
    --manifest-path "$here/Cargo.toml" --profile "$profile" \
    --interpreter "$venv/bin/python" --out "$wheels"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --force-reinstall --no-deps "$wheels"/py2048-*.whl

# tests/test_distributed.py checks its games against the lab's (a no-op
# after `cargo test --workspace` built it).
echo "==> py2048: building the lab for the tournament tests"
cargo build --quiet --manifest-path "$root/Cargo.toml" -p lab
export PY2048_CLI="$target/debug/lab"

echo "==> py2048: pytest"
cd "$here"
status=0
PY2048_CI=1 "$venv/bin/python" -m pytest -q -rs -p no:cacheprovider --import-mode=importlib tests || status=$?
if [[ $status -eq 5 ]]; then
    echo "py2048: pytest collected no tests: failing" >&2
    exit 1
fi
echo "==> py2048: done in $((SECONDS - start)) s (pytest exit code $status)"
exit "$status"
