//go:build imageboot

package vm_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/tests/internal/agenttest"
)

// TestDesktopImage boots the production image (make image) under TCG and takes a screenshot of its
// desktop through the broker over virtio-serial. It is long (minutes under TCG, after a build that needs
// root), so it is built only with the imageboot tag: make image-boot.
func TestDesktopImage(t *testing.T) {
	build := os.Getenv("GLOVEBOX_DESKTOP_IMAGE")
	if build == "" {
		t.Fatal("set GLOVEBOX_DESKTOP_IMAGE to the image build directory (make image-boot does)")
	}
	needVM(t)
	if _, err := os.Stat(filepath.Join(build, "desktop.qcow2")); err != nil {
		t.Fatalf("no image: %v (make image)", err)
	}
	root := agenttest.RepoRoot(t)
	g := startQEMU(t, filepath.Join(root, "images/desktop/boot.sh"), build, "GB_IMAGE_DIR="+build)
	b := newBroker(t)
	b.start(t)
	ctx := context.Background()
	ep := "serial+unix://" + filepath.Join(g.dir, "agent.sock")
	if _, err := brokerv1.NewGuestServiceClient(b.conn).RegisterGuest(ctx, &brokerv1.RegisterGuestRequest{Name: "desktop", Endpoint: ep}); err != nil {
		t.Fatalf("register guest: %v", err)
	}
	info := b.waitReady(t, "desktop", 10*time.Minute, nil)
	report(t, "desktop image: boot-to-ready virtio-serial (QEMU start to broker READY)", time.Since(g.start))
	t.Logf("agent %s, capabilities %v", info.GetAgent().GetVersion(), info.GetAgent().GetCapabilities())
	s, err := brokerv1.NewSessionServiceClient(b.conn).CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: "desktop"})
	if err != nil {
		t.Fatal(err)
	}
	cc := brokerv1.NewComputerServiceClient(b.conn)
	// Xvfb's root is black; Chromium's about:blank page is white: wait until the browser window shows.
	for {
		img, err := screenshot(ctx, cc, s.GetSession().GetId())
		if err == nil {
			w := whiteShare(img)
			if w > 0.2 {
				report(t, "desktop image: screenshot with the Chromium window through the broker (from QEMU start)", time.Since(g.start))
				t.Logf("screenshot %v, %.0f%% white (Chromium's page)", img.Bounds().Size(), 100*w)
				return
			}
		}
		if time.Since(g.start) > 15*time.Minute {
			t.Fatalf("no Chromium window within 15 min: %v", err)
		}
		time.Sleep(2 * time.Second)
	}
}
