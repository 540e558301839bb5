#!/usr/bin/env bash
# Boots the test guest under QEMU/TCG (no KVM needed): q35, no network, the host's / read-only over 9p (and the
# checkout again, at the same path, since the guest's own /tmp, /run and /dev would hide a checkout there),
# virtio-serial ports org.glovebox.agent.0 (chardev socket $GB_VM_DIR/agent.sock: the broker dials
# serial+unix://$GB_VM_DIR/agent.sock) and org.glovebox.test.ctl ($GB_VM_DIR/ctl.sock, a root shell for
# tests), and $GB_VM_DIR/shared shared read-write at /shared. The serial console (with GLOVEBOX-MARK timing
# markers) is on stdout. Run build.sh first.
#   GB_VM_DIR  socket and shared directory (default: a new temporary directory, printed)
#   GB_ACCEL   tcg (default) or kvm
#   GB_APPEND  more kernel command line (e.g. initcall_debug, then dmesg in the guest; gb_warm=0)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$here/build
for f in vmlinux initramfs.cpio glovebox-agent guestprobe; do
	[[ -e $build/$f ]] || { echo "run.sh: $build/$f missing: run $here/build.sh" >&2; exit 1; }
done
dir=${GB_VM_DIR:-$(mktemp -d /tmp/gbvm.XXXXXX)}
mkdir -p "$dir/shared"
chmod 0777 "$dir/shared"
echo "run.sh: agent port serial+unix://$dir/agent.sock, ctl $dir/ctl.sock, shared $dir/shared" >&2
# Kernel options that shorten the boot under TCG (measured with initcall_debug): no W+X page check, no TSC and
# timer checks, expedited RCU grace periods (module loading waits for them), and no initcalls the guest does
# not need that cost 50-300 ms each (KDF self-test, kprobe tracing, zswap, encrypted keys) or 5-70 ms each
# (block tracing, the compaction daemon, the kernel's X.509 certificates (the modules are unsigned), the PS/2
# controller, MSR devices, clock debugfs, ACPI thermal zones, IMA, the Intel sideband).
fast="${GB_APPEND:-} rodata=off tsc=reliable no_timer_check rcupdate.rcu_expedited=1"
fast+=" initcall_blacklist=crypto_kdf108_init,init_kprobe_trace,init_zswap,init_encrypted,init_blk_tracer,kcompactd_init"
fast+=",load_system_certificate_list,i8042_init,msr_init,clk_debug_init,acpi_thermal_init,init_ima,iosf_mbi_init"
echo "GLOVEBOX-MARK qemu-start $(date +%s.%N)" >&2
exec qemu-system-x86_64 \
	-machine q35,accel="${GB_ACCEL:-tcg}" -cpu max -smp 2 -m 1536 \
	-nodefaults -no-user-config -display none -serial stdio -no-reboot -nic none \
	-kernel "$build/vmlinux" -initrd "$build/initramfs.cpio" \
	-append "console=ttyS0 quiet cryptomgr.notests mitigations=off apparmor=0 ipv6.disable=1 panic=-1 $fast gb_repo=$repo" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$repo",mount_tag=repo,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$dir/shared",mount_tag=shared,security_model=none,multidevs=remap \
	-device virtio-serial-pci,id=vser \
	-chardev socket,id=agent,path="$dir/agent.sock",server=on,wait=off \
	-device virtserialport,bus=vser.0,chardev=agent,name=org.glovebox.agent.0 \
	-chardev socket,id=ctl,path="$dir/ctl.sock",server=on,wait=off \
	-device virtserialport,bus=vser.0,chardev=ctl,name=org.glovebox.test.ctl
