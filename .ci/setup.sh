#!/bin/sh
# Installs what Planetfall needs on a Debian machine (12 "bookworm" or later), then returns.
# Safe to run again: it installs only what is missing. Needs root (or sudo) for apt-get.
set -eu

PKGS="libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers libshaderc-dev glslc xvfb ferret-datasets gmt gmt-gshhg-full renderdoc python3-renderdoc xauth"

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done

if [ -n "$missing" ]; then
    if [ ! -f /etc/debian_version ]; then
        echo "planetfall setup: this is not Debian; install the equivalents of:$missing" >&2
        echo "(Vulkan loader + headers, Mesa's lavapipe, the Khronos validation layer, glslc, Xvfb, NOAA ETOPO5 relief, GMT with the GSHHG full-resolution shorelines, RenderDoc)" >&2
        exit 1
    fi
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "planetfall setup: missing packages:$missing" >&2
        echo "run as root: apt-get install -y$missing" >&2
        exit 1
    fi
    echo "planetfall setup: installing$missing"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
    echo "planetfall setup: cargo not found; install Rust (https://rustup.rs) and run again" >&2
    exit 1
fi
