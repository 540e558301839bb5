// Command glovebox is the command line client of glovebox-broker: guests, sessions, screenshots, every act
// verb, the clipboard, control takeover and the audit log tools. Run `glovebox help` for usage.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"glovebox.dev/host/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv})
	stop()
	os.Exit(code)
}
