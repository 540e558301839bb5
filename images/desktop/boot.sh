#!/usr/bin/env bash
# Boots the desktop image (build.sh) with QEMU: under TCG by default (no KVM needed), with the agent's
# virtio-serial port org.glovebox.agent.0 on the chardev socket $GB_VM_DIR/agent.sock (register the guest
# with the broker as serial+unix://$GB_VM_DIR/agent.sock). The disk is opened with snapshot=on, so the
# image stays as built. The serial console is on stdout.
#   GB_VM_DIR     directory of the sockets (default: a new temporary directory, printed)
#   GB_ACCEL      tcg (default) or kvm
#   GB_VSOCK_CID  with KVM and /dev/vhost-vsock: add vhost-vsock-pci with this guest CID (the broker then
#                 dials vsock://CID:1024)
#   GB_MEM        memory in MiB (default 2048)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${GB_IMAGE_DIR:-$here/build}
for f in desktop.qcow2 initrd.img; do
	[[ -e $build/$f ]] || { echo "boot.sh: $build/$f missing: run make image" >&2; exit 1; }
done
kernel=$build/vmlinux # uncompressed: no decompression under TCG
[[ -s $kernel ]] || kernel=$build/vmlinuz
dir=${GB_VM_DIR:-$(mktemp -d /tmp/gbdesk.XXXXXX)}
echo "boot.sh: agent port serial+unix://$dir/agent.sock" >&2
echo "GLOVEBOX-MARK qemu-start $(date +%s.%N)" >&2
vsock=()
if [[ -n ${GB_VSOCK_CID:-} ]]; then
	vsock=(-device "vhost-vsock-pci,guest-cid=$GB_VSOCK_CID")
fi
exec qemu-system-x86_64 \
	-machine q35,accel="${GB_ACCEL:-tcg}" -cpu max -smp 2 -m "${GB_MEM:-2048}" \
	-nodefaults -no-user-config -display none -serial stdio -nic none \
	-kernel "$kernel" -initrd "$build/initrd.img" \
	-append "root=/dev/vda rw console=ttyS0 quiet cryptomgr.notests mitigations=off ipv6.disable=1" \
	-drive file="$build/desktop.qcow2",if=virtio,format=qcow2,snapshot=on \
	-device virtio-serial-pci,id=vser \
	-chardev socket,id=agent,path="$dir/agent.sock",server=on,wait=off \
	-device virtserialport,bus=vser.0,chardev=agent,name=org.glovebox.agent.0 \
	"${vsock[@]}"
