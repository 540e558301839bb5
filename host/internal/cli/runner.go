package cli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/endpoint"
	"glovebox.dev/shared/errgrpc"
)

// maxMessageBytes matches the broker's and agent's message limit (a full-screen PNG fits many times over).
const maxMessageBytes = 32 << 20

// globalFlags are accepted by every command, before or after its name.
type globalFlags struct {
	broker, cert, key, ca string
	timeout               time.Duration
	json                  bool
}

// runner holds one invocation's flags and its lazily opened broker connection.
type runner struct {
	ctx    context.Context
	env    Env
	global globalFlags
	// session is -s given before a subcommand's name; it overrides $GLOVEBOX_SESSION as the default.
	session string
	conn    *grpc.ClientConn
}

func (r *runner) close() {
	if r.conn != nil {
		r.conn.Close()
	}
}

// flagSet returns a flag set for cmd with the global flags registered, printing nothing by itself.
func (r *runner) flagSet(cmd string) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&r.global.broker, "broker", r.global.broker, "broker endpoint URI")
	fs.StringVar(&r.global.cert, "cert", r.global.cert, "client certificate (tcp)")
	fs.StringVar(&r.global.key, "key", r.global.key, "client key (tcp)")
	fs.StringVar(&r.global.ca, "ca", r.global.ca, "CA certificate (tcp)")
	fs.DurationVar(&r.global.timeout, "timeout", r.global.timeout, "deadline of each call")
	fs.BoolVar(&r.global.json, "json", r.global.json, "print protojson")
	return fs
}

// offlineFlagSet is flagSet for commands that never reach the broker (audit verify and prove): only -json, so
// `audit prove -key` is the audit key and not the TLS client key.
func (r *runner) offlineFlagSet(cmd string) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&r.global.json, "json", r.global.json, "print JSON")
	return fs
}

// parse parses args with flags interspersed among positional arguments and returns the positional ones.
// An argument that looks like a negative number ("-3") is positional, so `scroll 0 -3` works; "--" ends flags.
// cmd names the command for usage errors (a key of commands).
func (r *runner) parse(fs *flag.FlagSet, cmd string, args []string) ([]string, error) {
	var pos []string
	for {
		for len(args) > 0 && (isNumber(args[0]) || args[0] == "-" || !strings.HasPrefix(args[0], "-")) {
			pos = append(pos, args[0])
			args = args[1:]
		}
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(r.env.Stdout, usages[cmd])
				return nil, errHelpShown
			}
			return nil, usagef(cmd, "%v", err)
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		args = rest
	}
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// client opens the broker connection on first use.
func (r *runner) client() (*grpc.ClientConn, error) {
	if r.conn != nil {
		return r.conn, nil
	}
	ep, err := endpoint.Parse(r.global.broker)
	if err != nil {
		return nil, usagef("", "-broker %q: %v", r.global.broker, err)
	}
	var creds credentials.TransportCredentials
	switch ep.Scheme {
	case "unix":
		// The broker authenticates a unix peer by its uid (SO_PEERCRED); there is nothing to encrypt.
		creds = insecure.NewCredentials()
	case "tcp":
		tc, err := r.tlsConfig(ep.Host)
		if err != nil {
			return nil, err
		}
		creds = credentials.NewTLS(tc)
	default:
		return nil, usagef("", "-broker %q: the broker listens on unix:// or tcp://, not %s://", r.global.broker, ep.Scheme)
	}
	opts := []grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return endpoint.Dial(ctx, ep) }),
		grpc.WithChainUnaryInterceptor(errgrpc.UnaryClientInterceptor()),
		grpc.WithChainStreamInterceptor(errgrpc.StreamClientInterceptor()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessageBytes), grpc.MaxCallSendMsgSize(maxMessageBytes)),
	}
	opts = append(opts, endpoint.WindowOptions()...)
	opts = append(opts, r.env.DialOptions...)
	conn, err := grpc.NewClient("passthrough:///glovebox-broker", opts...)
	if err != nil {
		return nil, fmt.Errorf("broker %s: %w", r.global.broker, err)
	}
	r.conn = conn
	return conn, nil
}

// tlsConfig builds the mTLS client configuration for a tcp:// broker; all three files are required because
// the broker's TCP listener refuses clients without a certificate.
func (r *runner) tlsConfig(host string) (*tls.Config, error) {
	if r.global.cert == "" || r.global.key == "" || r.global.ca == "" {
		return nil, usagef("", "a tcp:// broker needs -cert, -key and -ca (mTLS)")
	}
	pair, err := tls.LoadX509KeyPair(r.global.cert, r.global.key)
	if err != nil {
		return nil, fmt.Errorf("client certificate: %w", err)
	}
	caPEM, err := os.ReadFile(r.global.ca)
	if err != nil {
		return nil, fmt.Errorf("ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("ca %s: no PEM certificate", r.global.ca)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: pool, ServerName: host, MinVersion: tls.VersionTLS13}, nil
}

// serviceClient returns a client of one broker service (newClient is a brokerv1.NewXServiceClient), opening
// the connection on first use.
func serviceClient[C any](r *runner, newClient func(grpc.ClientConnInterface) C) (C, error) {
	conn, err := r.client()
	if err != nil {
		var none C
		return none, err
	}
	return newClient(conn), nil
}

// parseForService parses cmd's flags and returns the positional arguments and a client of one broker service,
// for the commands whose subcommands each call that service.
func parseForService[C any](r *runner, fs *flag.FlagSet, cmd string, args []string,
	newClient func(grpc.ClientConnInterface) C) ([]string, C, error) {
	pos, err := r.parse(fs, cmd, args)
	if err != nil {
		var none C
		return nil, none, err
	}
	c, err := serviceClient(r, newClient)
	return pos, c, err
}

// unary makes one call bounded by -timeout.
func unary[Req, Resp any](r *runner, rpc func(context.Context, Req, ...grpc.CallOption) (Resp, error), req Req) (Resp, error) {
	ctx, cancel := context.WithTimeout(r.ctx, r.global.timeout)
	defer cancel()
	return rpc(ctx, req)
}

// show makes one call and prints its response: protojson with -json, else text.
func show[Req any, Resp proto.Message](r *runner, rpc func(context.Context, Req, ...grpc.CallOption) (Resp, error), req Req,
	text func(w io.Writer, resp Resp)) error {
	resp, err := unary(r, rpc, req)
	if err != nil {
		return err
	}
	return r.emit(resp, func(w io.Writer) { text(w, resp) })
}

// callComputer makes one ComputerService call bounded by -timeout; rpc is a method expression such as
// brokerv1.ComputerServiceClient.Act.
func callComputer[Req, Resp any](r *runner, rpc func(brokerv1.ComputerServiceClient, context.Context, Req, ...grpc.CallOption) (Resp, error),
	req Req) (Resp, error) {
	cc, err := serviceClient(r, brokerv1.NewComputerServiceClient)
	if err != nil {
		var none Resp
		return none, err
	}
	return unary(r, func(ctx context.Context, req Req, opts ...grpc.CallOption) (Resp, error) {
		return rpc(cc, ctx, req, opts...)
	}, req)
}

// sessionFlag registers -s with $GLOVEBOX_SESSION as its default.
func (r *runner) sessionFlag(fs *flag.FlagSet) *string {
	def := r.session
	if def == "" {
		def = r.env.Getenv("GLOVEBOX_SESSION")
	}
	return fs.String("s", def, "session id")
}

// needSession checks that -s was given.
func needSession(cmd, s string) error {
	if s == "" {
		return usagef(cmd, "-s SESSION is required (or set GLOVEBOX_SESSION)")
	}
	return nil
}

// parseOnSession parses the flags of a command that runs on one session and takes no positional arguments,
// and checks that session (registered on fs by sessionFlag) was given.
func (r *runner) parseOnSession(fs *flag.FlagSet, cmd string, args []string, session *string) error {
	if err := r.parseNoArgs(fs, cmd, args); err != nil {
		return err
	}
	return needSession(cmd, *session)
}

// parseNoArgs parses the flags of a command that takes no positional arguments.
func (r *runner) parseNoArgs(fs *flag.FlagSet, cmd string, args []string) error {
	pos, err := r.parse(fs, cmd, args)
	if err != nil {
		return err
	}
	return wantArgs(cmd, pos, 0, "no positional arguments")
}

// readText returns the positional text argument or, with -stdin, standard input; exactly one is required.
func (r *runner) readText(cmd string, pos []string, fromStdin bool) (string, error) {
	switch {
	case fromStdin && len(pos) == 0:
		b, err := io.ReadAll(r.env.Stdin)
		if err != nil {
			return "", fmt.Errorf("stdin: %w", err)
		}
		return string(b), nil
	case !fromStdin && len(pos) == 1:
		return pos[0], nil
	default:
		return "", usagef(cmd, "give the text as one argument or with -stdin")
	}
}
