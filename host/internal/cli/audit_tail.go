package cli

import (
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protojson"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// recordJSON prints records exactly as the log files hold them (proto field names), so a line printed by
// `audit tail -json` can be given to `audit prove`.
var recordJSON = protojson.MarshalOptions{UseProtoNames: true}

// tailPageSize is the broker's largest ListAuditRecords page.
const tailPageSize = 1000

func (r *runner) auditTail(args []string) error {
	const cmd = "audit"
	fs := r.flagSet(cmd)
	guest := fs.String("guest", "", "guest")
	follow := fs.Bool("f", false, "follow: stream new records as they become durable")
	n := fs.Int("n", 10, "records to show first")
	session := fs.String("session", "", "only this session's records")
	if err := r.parseNoArgs(fs, cmd, args); err != nil {
		return err
	}
	if *guest == "" {
		return usagef(cmd, "audit tail needs -guest G")
	}
	if *n < 0 {
		return usagef(cmd, "-n %d: want 0 or more", *n)
	}
	ac, err := serviceClient(r, brokerv1.NewAuditServiceClient)
	if err != nil {
		return err
	}
	last, err := r.tailLast(ac, *guest, *session, *n)
	if err != nil {
		return err
	}
	if !*follow {
		return nil
	}
	// Follow from the record after the last one seen; from_seq 0 would mean "from now on" and could miss
	// records written between the listing and the watch.
	stream, err := ac.WatchAuditRecords(r.ctx, &brokerv1.WatchAuditRecordsRequest{Guest: *guest, FromSeq: last + 1})
	if err != nil {
		return err
	}
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if r.ctx.Err() != nil {
				return nil // interrupted by the user
			}
			return err
		}
		rec := resp.GetRecord()
		if *session != "" && rec.GetSessionId() != *session {
			continue
		}
		if err := r.printRecord(rec); err != nil {
			return err
		}
	}
}

// tailLast prints the guest's last n records (of the session when given) and returns the highest seq in the
// log (0 when it is empty).
func (r *runner) tailLast(ac brokerv1.AuditServiceClient, guest, session string, n int) (uint64, error) {
	head, err := r.headSeq(ac, guest)
	if err != nil || head == 0 {
		return head, err
	}
	// Without a session filter the last n records are seqs head-n+1..head. With one they can be anywhere,
	// so page backwards through windows of the log until n are found.
	var found []*brokerv1.AuditRecord
	to := head
	for to > 0 && len(found) < n {
		from := uint64(1)
		if to > tailPageSize {
			from = to - tailPageSize + 1
		}
		if session == "" && to-from+1 > uint64(n) {
			from = to - uint64(n) + 1
		}
		var window []*brokerv1.AuditRecord
		token := ""
		for {
			resp, err := unary(r, ac.ListAuditRecords, &brokerv1.ListAuditRecordsRequest{Guest: guest, SessionId: session, FromSeq: from, ToSeq: to,
				PageSize: tailPageSize, PageToken: token})
			if err != nil {
				return 0, err
			}
			window = append(window, resp.GetRecords()...)
			if token = resp.GetNextPageToken(); token == "" {
				break
			}
		}
		found = append(window, found...)
		to = from - 1
	}
	if len(found) > n {
		found = found[len(found)-n:]
	}
	for _, rec := range found {
		if err := r.printRecord(rec); err != nil {
			return 0, err
		}
	}
	return head, nil
}

// headSeq finds the guest's highest seq with a galloping then binary search over ListAuditRecords
// (from_seq=x, page_size=1 says whether any record >= x exists): about 2*log2(seq) small calls.
func (r *runner) headSeq(ac brokerv1.AuditServiceClient, guest string) (uint64, error) {
	exists := func(seq uint64) (uint64, error) {
		resp, err := unary(r, ac.ListAuditRecords, &brokerv1.ListAuditRecordsRequest{Guest: guest, FromSeq: seq, PageSize: 1})
		if err != nil {
			return 0, err
		}
		if len(resp.GetRecords()) == 0 {
			return 0, nil
		}
		return resp.GetRecords()[0].GetSeq(), nil
	}
	lo := uint64(0) // highest seq known to exist (0: none)
	hi := uint64(1) // probe
	for {
		got, err := exists(hi)
		if err != nil {
			return 0, err
		}
		if got == 0 {
			break
		}
		lo = got
		if hi > 1<<62 {
			return lo, nil
		}
		hi = max(hi*2, got+1)
	}
	// Records exist at lo and none at or above hi.
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		got, err := exists(mid)
		if err != nil {
			return 0, err
		}
		if got == 0 {
			hi = mid
		} else {
			lo = got
			if got >= hi {
				break
			}
		}
	}
	return lo, nil
}

// printRecord prints one record: protojson as in the files with -json, else one line for people (its
// arguments are already redacted by the broker).
func (r *runner) printRecord(rec *brokerv1.AuditRecord) error {
	if r.global.json {
		b, err := recordJSON.Marshal(rec)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(r.env.Stdout, "%s\n", b)
		return err
	}
	args := "-"
	if rec.GetArgs() != nil {
		if b, err := protojson.Marshal(rec.GetArgs()); err == nil {
			args = string(b)
		}
	}
	code := rec.GetCode()
	if rec.GetReason() != "" {
		code += "/" + rec.GetReason()
	}
	target := "-"
	if rec.GetTarget() != nil {
		target = describeFrozen(rec.GetTarget())
	}
	_, err := fmt.Fprintf(r.env.Stdout, "%d %s %s %s session=%s principal=%s code=%s %dus target=[%s] args=%s\n", rec.GetSeq(),
		stamp(rec.GetTime()), shortEnum(rec.GetPhase().String(), "AUDIT_PHASE_"), shortRPC(rec.GetRpc()), orDash(rec.GetSessionId()),
		orDash(rec.GetPrincipal()), orDash(code), rec.GetDurationUs(), target, clean(args))
	return err
}

// shortRPC keeps the method name of a full gRPC method ("/glovebox.broker.v1.ComputerService/Act" -> "Act").
func shortRPC(m string) string {
	for i := len(m) - 1; i >= 0; i-- {
		if m[i] == '/' {
			return clean(m[i+1:])
		}
	}
	return orDash(m)
}
