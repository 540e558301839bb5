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
//     returns once the record is durable (written and fsynced, group commit per guest). [Log.AppendWritten]
//     returns once the record is written in chain order, without waiting for its fsync (the broker's
//     observations, see below). [Log.List] pages through a guest's durable records (waiting for the fsync
//     under way, so a record AppendWritten returned is listed), [Log.Watch] streams the backlog then each new
//     durable record. [Observer] receives fsync latency and queue depth for metrics.
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
// # Durability and speed
//
// Appending goroutines write themselves: under the guest's write lock, whoever gets it first seals every
// record queued so far in order (seq, prev_hash, hash) and writes them with one write(2); AppendWritten then
// returns. Written batches wait for a sync round: one fdatasync for every batch written since the previous
// round, then the batches are published to watchers and those waiting in Append released. A durable Append
// that finds no round under way runs it itself (no handoff to another goroutine for a lone append); batches
// written during a round are synced by the guest's syncer goroutine when it ends. Writing never waits for
// the fsync under way (an observation's answer never waits for the disk), and records that arrive during an
// fsync share the next one. Rotation and recovery after a failed write or sync wait for the rounds first.
//
// Guarantees: a record Append acknowledged is durable, and so is every record of that guest before it in
// the file, including any AppendWritten returned earlier (a file's data is made durable in order; the crash
// test checks both). The broker makes a mutation's INTENT durable (Append) before sending it to the guest and
// its OUTCOME durable before answering, so a broker killed at any point loses no acknowledged mutation.
//
// Observations (screenshots, cursor, windows, clipboard reads) use AppendWritten: their answer carries the
// record's seq, which is assigned and written before the answer, but the answer does not wait for the disk.
// Waiting costs a screenshot one fsync (~0.15 ms p50, several ms under load) for a record that describes no
// change to the guest. The record is made durable by the next sync round (started at once by the syncer, or
// when the round under way ends: within about two fsyncs of the answer), and at the latest together with the
// guest's next mutation intent, which follows it in the file. What a crash in that window can cost: the
// records of observations answered during the last fsyncs; their seqs are then given to the next records. A caller that needs an observation's record durable reads
// it back (ListAuditRecords waits for the fsync under way). Refusals, session and control records use Append.
//
// Each sync round calls fdatasync in its own goroutine. (Submitting concurrent fdatasyncs through Linux AIO,
// so a writer waiting for one holds no P, was tried and removed: BenchmarkSyncAIO, run against plain
// fdatasync on 16 guests at once, showed no clear gain, so the simpler path stays.) The guests' files
// are synced independently and concurrently; ext4 joins concurrent fdatasyncs into one journal commit, so a
// user-space batch across guests would save nothing the kernel does not already save. Files are not
// preallocated: every fdatasync also commits the file's new size.
//
// Encoding a record is the appending goroutine's work (preencode), so the writer only splices in seq,
// prev_hash and hash. Both encodings are written straight from the Go structs (jsonenc.go, binenc.go): the
// line byte for byte what protojson.Marshal plus json.Compact gives, the hashed form what deterministic
// proto.Marshal gives, without allocating (for a click's record about 12 and 5 times cheaper than the
// reflective originals: BenchmarkRecordLine, BenchmarkRecordBinary).
// Whatever they are not sure to encode exactly so (invalid UTF-8, a Value without a kind, a field added to
// the proto since) goes through protojson and proto as before; tests hold both to the originals on random
// records.
//
// A crash can leave a final line without its "\n" (a write whose fsync never returned, so never
// acknowledged): [Open] truncates it away and continues the chain from the last complete record. Nothing else
// is repaired: a record that does not verify stays where it is and [Verify] reports it.
package audit
