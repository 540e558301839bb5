// Command guestprobe runs inside the test guest (built on the host, reached through the 9p host root) and
// checks glovebox-agent over vsock from within the guest, where vsock works over vsock_loopback (CID 1):
//
//	guestprobe -wait vsock://1:7005      print a GLOVEBOX-MARK line once the agent answers GetInfo
//	guestprobe -allowed vsock://1:7005 -refused vsock://1:7006
//	                                     real RPCs (GetInfo, a screenshot) on the agent told -allow-cid 1;
//	                                     the agent with the default CID check must refuse the same client
//
// It prints one "key=value ..." line per check and exits non-zero when a check fails. It never opens
// vsock on the host: it is only ever run inside the guest.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/endpoint"
)

func main() {
	wait := flag.String("wait", "", "endpoint to wait for; prints a GLOVEBOX-MARK vsock-ready line")
	allowed := flag.String("allowed", "", "endpoint of an agent that allows this client")
	refused := flag.String("refused", "", "endpoint of an agent that must refuse this client")
	flag.Parse()
	if err := run(*wait, *allowed, *refused); err != nil {
		fmt.Println("guestprobe: FAIL", err)
		os.Exit(1)
	}
}

func run(wait, allowed, refused string) error {
	if wait != "" {
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_, err := getInfo(ctx, wait)
			cancel()
			if err == nil {
				up, _ := os.ReadFile("/proc/uptime")
				fmt.Printf("GLOVEBOX-MARK vsock-ready %s\n", strings.Fields(string(up))[0])
				return nil
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if allowed != "" {
		cc, err := dial(allowed)
		if err != nil {
			return err
		}
		defer cc.Close()
		start := time.Now()
		info, err := agentv1.NewAgentServiceClient(cc).GetInfo(ctx, &agentv1.GetInfoRequest{}, grpc.WaitForReady(true))
		if err != nil {
			return fmt.Errorf("GetInfo over %s: %w", allowed, err)
		}
		shot, err := agentv1.NewObserveServiceClient(cc).CaptureScreenshot(ctx, &agentv1.CaptureScreenshotRequest{})
		if err != nil {
			return fmt.Errorf("CaptureScreenshot over %s: %w", allowed, err)
		}
		fmt.Printf("allowed=%s ok=true generation=%d screenshot_bytes=%d ms=%d\n", allowed, info.GetGeneration(), len(shot.GetImage().GetData()), time.Since(start).Milliseconds())
	}
	if refused != "" {
		rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
		defer rcancel()
		_, err := getInfo(rctx, refused)
		if err == nil {
			return fmt.Errorf("%s answered a client from CID 1 without -allow-cid 1", refused)
		}
		fmt.Printf("refused=%s ok=true error=%q\n", refused, err.Error())
	}
	return nil
}

func dial(uri string) (*grpc.ClientConn, error) {
	ep, err := endpoint.Parse(uri)
	if err != nil {
		return nil, err
	}
	target, opts := endpoint.GRPCTarget(ep)
	return grpc.NewClient(target, append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(32<<20)))...)
}

func getInfo(ctx context.Context, uri string) (*agentv1.GetInfoResponse, error) {
	cc, err := dial(uri)
	if err != nil {
		return nil, err
	}
	defer cc.Close()
	return agentv1.NewAgentServiceClient(cc).GetInfo(ctx, &agentv1.GetInfoRequest{})
}
