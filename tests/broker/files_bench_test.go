package broker_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/testenv"
)

// benchDropBytes is the size of the benchmarked drop.
const benchDropBytes = 256 << 20

// BenchmarkDrop256 puts a 256 MiB drop through broker and agent over unix sockets (client -> broker ->
// agent -> file in ~/Drops, sha256 checked) beside socat copying the same bytes from its stdin over a unix
// socket into a file in the same directory (client socat -> socket -> server socat -> file), in one run, both
// into tmpfs (/dev/shm) when there is one.
// Each iteration ends when the file is complete; the drop's file is removed between iterations, untimed.
func BenchmarkDrop256(b *testing.B) {
	testenv.NeedCommands(b, "Xvfb", "openbox", "socat")
	data := make([]byte, benchDropBytes)
	r := rand.NewChaCha8([32]byte{9})
	r.Read(data)
	sum := sha256.Sum256(data)
	// Both write into memory (tmpfs) when the machine has it: the shared disk's write-back stalls would time
	// the disk, not the transfer, and differently for each side.
	home := b.TempDir()
	if dir, err := os.MkdirTemp("/dev/shm", "gbx-bench-"); err == nil {
		home = dir
		b.Cleanup(func() { os.RemoveAll(dir) })
	}
	f := startFilesIn(b, home, nil)
	ctx := context.Background()
	drops := filepath.Join(f.home, "Drops")
	os.MkdirAll(drops, 0o700)

	b.Run("glovebox-256MiB", func(b *testing.B) {
		b.SetBytes(benchDropBytes)
		lat := make([]time.Duration, 0, 8)
		pids := []int{os.Getpid(), f.broker.cmd.Process.Pid, f.agent.Pid()}
		cpu0 := cpuTimes(b, pids)
		for b.Loop() {
			t0 := time.Now()
			resp, err := dropBytes(ctx, f.files, f.session, "bench.bin", data, hex.EncodeToString(sum[:]))
			lat = append(lat, time.Since(t0))
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			os.Remove(resp.GetResponse().GetFiles()[0].GetPath())
			b.StartTimer()
		}
		cpu := cpuTimes(b, pids)
		for i, name := range []string{"client", "broker", "agent"} {
			b.ReportMetric((cpu[i]-cpu0[i]).Seconds()/float64(b.N), name+"-cpu-s/op")
			b.ReportMetric((cpu[i+3]-cpu0[i+3]).Seconds()/float64(b.N), name+"-sys-s/op")
		}
		reportP50(b, lat)
	})
	b.Run("socat-256MiB", func(b *testing.B) {
		b.SetBytes(benchDropBytes)
		sock := filepath.Join(f.home, "bench.sock")
		out := filepath.Join(drops, "socat.bin")
		lat := make([]time.Duration, 0, 8)
		var cpu time.Duration
		for b.Loop() {
			b.StopTimer()
			os.Remove(sock)
			os.Remove(out)
			srv := f.agent.Desktop.Command("socat", "-u", "UNIX-LISTEN:"+sock, "CREATE:"+out)
			if err := srv.Start(); err != nil {
				b.Fatal(err)
			}
			waitSocket(b, sock)
			b.StartTimer()
			t0 := time.Now()
			cli := f.agent.Desktop.Command("socat", "-u", "STDIN", "UNIX-CONNECT:"+sock)
			cli.Stdin = bytes.NewReader(data)
			if err := cli.Run(); err != nil {
				b.Fatal(err)
			}
			if err := srv.Wait(); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
			b.StopTimer()
			for _, ps := range []*os.ProcessState{cli.ProcessState, srv.ProcessState} {
				cpu += ps.UserTime() + ps.SystemTime()
			}
			if st, err := os.Stat(out); err != nil || st.Size() != benchDropBytes {
				b.Fatalf("socat wrote %v %v", st, err)
			}
			b.StartTimer()
		}
		os.Remove(out)
		b.ReportMetric(cpu.Seconds()/float64(b.N), "socat-cpu-s/op")
		reportP50(b, lat)
	})
}

func waitSocket(b *testing.B, path string) {
	b.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("socat did not listen on %s", path)
		}
		time.Sleep(time.Millisecond)
	}
}

// cpuTimes reads the user and system CPU time of each process from /proc/PID/stat.
func cpuTimes(b *testing.B, pids []int) []time.Duration {
	b.Helper()
	out := make([]time.Duration, 2*len(pids))
	for i, pid := range pids {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			b.Fatal(err)
		}
		// Fields after the command name (which may hold spaces) in parentheses; utime and stime are the
		// 14th and 15th fields, in clock ticks (100 a second on Linux).
		fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
		for _, k := range []int{11, 12} {
			n, err := strconv.ParseInt(fields[k], 10, 64)
			if err != nil {
				b.Fatalf("/proc/%d/stat: %v", pid, err)
			}
			out[i] += time.Duration(n) * 10 * time.Millisecond
			if k == 12 {
				out[len(pids)+i] += time.Duration(n) * 10 * time.Millisecond
			}
		}
	}
	return out
}

func reportP50(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
}

// dropBytes drops one in-memory file, 1 MiB a chunk.
func dropBytes(ctx context.Context, files brokerv1.FilesServiceClient, session, name string, data []byte, sum string) (*brokerv1.DropFilesResponse, error) {
	st, err := files.DropFiles(ctx)
	if err != nil {
		return nil, err
	}
	h := &agentv1.DropFilesHeader{Files: []*agentv1.DropFile{{Name: name, Size: int64(len(data)), Sha256: sum}}}
	if err := st.Send(&brokerv1.DropFilesRequest{SessionId: session, Request: &agentv1.DropFilesRequest{Frame: &agentv1.DropFilesRequest_Header{Header: h}}}); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	for off := 0; off < len(data); off += 1 << 20 {
		chunk := data[off:min(off+1<<20, len(data))]
		if err := st.Send(&brokerv1.DropFilesRequest{Request: &agentv1.DropFilesRequest{Frame: &agentv1.DropFilesRequest_Chunk{Chunk: &agentv1.FileChunk{Data: chunk}}}}); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
	}
	return st.CloseAndRecv()
}

// BenchmarkImageClipboard puts a 1280x800 PNG through the image clipboard beside xclip, in one run:
// roundtrip writes it and reads it back (glovebox: WriteClipboardData + ReadClipboardData over the agent's
// unix socket, the read answered from the agent's own offer; xclip: `xclip -t image/png -i` then
// `xclip -t image/png -o`); read converts a PNG another client (an xclip server) owns, through the X server
// for both. Each iteration checks the bytes.
func BenchmarkImageClipboard(b *testing.B) {
	testenv.NeedCommands(b, "Xvfb", "openbox", "xclip")
	f := startFiles(b, nil)
	ctx := context.Background()
	clip := agentv1.NewClipboardServiceClient(f.agent.DialUnix(b))
	var servers []*os.Process
	defer func() {
		for _, p := range servers {
			p.Kill()
		}
	}()
	// desktop: the agent's screenshot of its screen (small, one property); photo: dense content (INCR).
	for _, c := range []struct {
		name string
		img  []byte
	}{{"desktop", benchPNG(b, f)}, {"photo", testPNG(b)}} {
		img := c.img
		b.Logf("%s: PNG of %d bytes", c.name, len(img))
		pngFile := filepath.Join(f.home, c.name+".png")
		if err := os.WriteFile(pngFile, img, 0o600); err != nil {
			b.Fatal(err)
		}
		read := func(b *testing.B) {
			r, err := clip.ReadClipboardData(ctx, &agentv1.ReadClipboardDataRequest{MimeType: "image/png"})
			if err != nil || !bytes.Equal(r.GetData(), img) {
				b.Fatalf("read %d bytes, %v; want the %d-byte PNG", len(r.GetData()), err, len(img))
			}
		}
		xclipRead := func(b *testing.B) {
			out, err := f.agent.Desktop.Command("xclip", "-selection", "clipboard", "-t", "image/png", "-o").Output()
			if err != nil || !bytes.Equal(out, img) {
				b.Fatalf("xclip -o: %d bytes, %v", len(out), err)
			}
		}
		timed := func(b *testing.B, op func(b *testing.B)) {
			lat := make([]time.Duration, 0, 1024)
			for b.Loop() {
				t0 := time.Now()
				op(b)
				lat = append(lat, time.Since(t0))
			}
			reportP50(b, lat)
		}
		b.Run("glovebox-roundtrip-"+c.name, func(b *testing.B) {
			timed(b, func(b *testing.B) {
				if _, err := clip.WriteClipboardData(ctx, &agentv1.WriteClipboardDataRequest{Owner: "bench", MimeType: "image/png", Data: img}); err != nil {
					b.Fatal(err)
				}
				read(b)
			})
		})
		b.Run("xclip-roundtrip-"+c.name, func(b *testing.B) {
			timed(b, func(b *testing.B) {
				// xclip forks a server that owns the selection and returns; the next write takes it over.
				if err := f.agent.Desktop.Command("xclip", "-selection", "clipboard", "-t", "image/png", "-i", pngFile).Run(); err != nil {
					b.Fatal(err)
				}
				xclipRead(b)
			})
		})
		owner := f.agent.Desktop.Command("xclip", "-quiet", "-selection", "clipboard", "-t", "image/png", "-i", pngFile)
		if err := owner.Start(); err != nil {
			b.Fatal(err)
		}
		servers = append(servers, owner.Process)
		deadline := time.Now().Add(10 * time.Second)
		for {
			r, err := clip.ReadClipboardData(ctx, &agentv1.ReadClipboardDataRequest{MimeType: "image/png"})
			if err == nil && bytes.Equal(r.GetData(), img) {
				break
			}
			if time.Now().After(deadline) {
				b.Fatal("xclip never owned the PNG")
			}
			time.Sleep(10 * time.Millisecond)
		}
		b.Run("glovebox-read-"+c.name, func(b *testing.B) { timed(b, read) })
		b.Run("xclip-read-"+c.name, func(b *testing.B) { timed(b, xclipRead) })
	}
}

// benchPNG is a 1280x800 PNG of a desktop: the agent's own screenshot of its Xvfb screen with an xterm.
func benchPNG(b *testing.B, f *filesSetup) []byte {
	b.Helper()
	r, err := agentv1.NewObserveServiceClient(f.agent.DialUnix(b)).CaptureScreenshot(context.Background(),
		&agentv1.CaptureScreenshotRequest{Options: &agentv1.ScreenshotOptions{Format: agentv1.ImageFormat_IMAGE_FORMAT_PNG}})
	if err != nil {
		b.Fatal(err)
	}
	if w, h := r.GetImage().GetWidth(), r.GetImage().GetHeight(); w != 1280 || h != 800 {
		b.Fatalf("screenshot %dx%d, want 1280x800", w, h)
	}
	return r.GetImage().GetData()
}
