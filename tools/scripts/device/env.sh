# Sourced on the device: the Vulkan loader from .gl/, the NVIDIA ICD, and Planetfall's data
# (ETOPO5 and the water mask carried in .dev/, a fresh data directory).
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p /tmp/pfdata
# ETOPO5 travels gzipped (the carried tree is limited to 64 MiB).
[ -f /tmp/etopo5.cdf ] || gunzip -c .dev/etopo5.cdf.gz > /tmp/etopo5.cdf
export PLANETFALL_ETOPO=/tmp/etopo5.cdf PLANETFALL_DATA=/tmp/pfdata
gunzip -c .dev/water.bb.gz > /tmp/water.bb
export PLANETFALL_WATER=/tmp/water.bb
P="$PWD/.dev/planetfall"
WC="$PWD/.dev/with-clocks"
