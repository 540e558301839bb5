// Package audit is glovebox-broker's audit log: one hash-chained, fsynced brokerv1.AuditRecord per request,
// per guest, with typed, pasted, filled and clipboard text replaced by its length and HMAC-SHA256 under the
// broker's audit key, so the log proves what was done without containing what was typed.
//
// # API
//
//   - [LoadOrCreateKey] reads the 32-byte audit key, creating it 0600 if absent; a key file readable by group
//     or other is refused. [Key.Text] turns a text into {"length": N, "hmac_sha256": "<hex>"}.
//   - [Redact] turns a request (or response) message into the Struct stored in AuditRecord.args: text-like
//     fields (the explicit list in redact.go, plus any string over 256 bytes not on the safe list) become the
//     length+HMAC object, bytes fields are dropped.
//   - [Open] opens (and recovers) the log directory; [Log.Append] fills seq, prev_hash, hash and time and
//     returns once the record is durable (written and fsynced, group commit per guest). [Log.List] pages
//     through a guest's records, [Log.Watch] streams the backlog then each new durable record. [Observer]
//     receives fsync latency and queue depth for metrics.
//   - Offline, for `glovebox audit verify|prove|tail`: [Verify] checks a guest's whole chain and says where it
//     breaks, [Prove] says which redacted values of a record match a text, [Scan] reads records in order,
//     [Tail] returns the last ones, [Hash] and [VerifyRecord] check one record.
//
// # Files
//
// The log directory holds one directory per guest, named after the guest. Each holds files named
// audit-<first-seq>.jsonl, first-seq zero-padded to 20 digits so that lexical order is sequence order; a new
// file starts when the current one would exceed Options.RotateBytes. Each line is one AuditRecord as compact
// protojson (proto field names, no insignificant whitespace) followed by "\n".
//
// seq counts a guest's records from 1 without gaps. prev_hash is the previous record's hash ("" for seq 1),
// across file boundaries. hash is the lowercase hex SHA-256 of the ASCII prev_hash followed by the
// deterministic binary protobuf encoding of the record with hash set to "". The JSON text is never hashed:
// protojson output is not byte-stable across library versions, the binary encoding of the parsed record is.
//
// A crash can leave a final line without its "\n" (a write whose fsync never returned, so never
// acknowledged): [Open] truncates it away and continues the chain from the last complete record. Nothing else
// is repaired: a record that does not verify stays where it is and [Verify] reports it.
package audit
