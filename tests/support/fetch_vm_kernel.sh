#!/usr/bin/env bash
# Fetch Debian's kernel for the cgroup-v2-only VM of tests/support/cgroup_v2_vm.py: vmlinuz and
# the modules its initramfs loads, into $BPE_TEST_VM_KERNEL (default
# /var/cache/bpe-autograder-test-vm). Needs apt-get and dpkg; does nothing when already there.
set -euo pipefail
target="${BPE_TEST_VM_KERNEL:-/var/cache/bpe-autograder-test-vm}"
modules="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci netfs fscache 9pnet 9pnet_virtio 9p overlay"
if [ -f "$target/vmlinuz" ] && [ -f "$target/modules/overlay.ko" ]; then
    exit 0
fi
package=$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -1)
if [ -z "$package" ]; then
    echo "fetch_vm_kernel: no linux-image package found" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download "$package" >/dev/null)
dpkg -x "$work"/*.deb "$work/root"
mkdir -p "$target/modules"
cp "$work"/root/boot/vmlinuz-* "$target/vmlinuz"
for module in $modules; do
    found=$(find "$work/root/lib/modules" -name "$module.ko" | head -1)
    if [ -z "$found" ]; then
        echo "fetch_vm_kernel: $package has no $module.ko" >&2
        exit 1
    fi
    cp "$found" "$target/modules/"
done
echo "fetch_vm_kernel: $package in $target"
