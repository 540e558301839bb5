package broker

import (
	"context"
	"strings"

	"google.golang.org/protobuf/proto"
)

// computerService prefixes the full method names of the session-scoped computer surface.
const computerService = "/glovebox.broker.v1.ComputerService/"

// AuditRefusal audits a computer request refused before its handler ran (the server's wire codec found
// invalid UTF-8 in it) like any other refused request, with the wrapped agent request as the codec
// repaired it (U+FFFD) as its arguments, and returns err. Requests of other services, and requests whose
// session is not one of the caller's open sessions, are not audited: there is no guest log to put them in.
func (b *Broker) AuditRefusal(ctx context.Context, rpc string, req any, err error) error {
	m, ok := req.(proto.Message)
	if !ok || !strings.HasPrefix(rpc, computerService) {
		return err
	}
	r := m.ProtoReflect()
	fields := r.Descriptor().Fields()
	sid := fields.ByName("session_id")
	if sid == nil {
		return err
	}
	cl, berr := b.begin(ctx, rpc, r.Get(sid).String())
	if berr != nil {
		return err
	}
	if f := fields.ByName("request"); f != nil && f.Message() != nil {
		cl.args = proto.CloneOf(r.Get(f).Message().Interface())
	}
	return b.refuse(ctx, cl, err)
}
