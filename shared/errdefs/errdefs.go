// Package errdefs defines the error classes shared by the agent and the broker. Code wraps a class with
// context (fmt.Errorf("window %d: %w", id, errdefs.ErrTargetGone)); package errgrpc turns the class into a
// gRPC status carrying google.rpc.ErrorInfo with a stable reason, and back again on the client side, so host
// code can use errors.Is across the wire.
package errdefs

import (
	"errors"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// Error classes. Each maps to one gRPC code and one agentv1.ErrorReason (see Reason and package errgrpc).
var (
	ErrInvalidArgument       = errors.New("invalid argument")
	ErrStaleRef              = errors.New("stale ref")
	ErrSnapshotSuperseded    = errors.New("snapshot superseded")
	ErrTargetGone            = errors.New("target gone")
	ErrTargetAmbiguous       = errors.New("target ambiguous")
	ErrControlHeld           = errors.New("control held")
	ErrReadOnlySession       = errors.New("read-only session")
	ErrCapabilityUnavailable = errors.New("capability unavailable")
	ErrUnsupportedAction     = errors.New("unsupported action")
	ErrPolicyDenied          = errors.New("policy denied")
	ErrConfirmationRequired  = errors.New("confirmation required")
	ErrNotFound              = errors.New("not found")
	ErrGenerationChanged     = errors.New("generation changed")
	ErrTimeout               = errors.New("timeout")
	ErrUnavailable           = errors.New("unavailable")
	ErrInterrupted           = errors.New("interrupted")
	ErrPermissionDenied      = errors.New("permission denied")
	ErrResourceExhausted     = errors.New("resource exhausted")
	ErrDuplicateRequest      = errors.New("duplicate request")
	ErrInternal              = errors.New("internal")
	// ErrTargetCovered: another element covers the one to act on; nothing was done.
	ErrTargetCovered = errors.New("target covered")
	// ErrValueMismatch: the action was done, but the value read back is not the one sent.
	ErrValueMismatch = errors.New("value mismatch")
	// ErrControlNotHeld: control of the guest is not held, so there is nothing to release.
	ErrControlNotHeld = errors.New("control not held")
)

var classes = []struct {
	err    error
	reason agentv1.ErrorReason
}{
	{ErrInvalidArgument, agentv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT},
	{ErrStaleRef, agentv1.ErrorReason_ERROR_REASON_STALE_REF},
	{ErrSnapshotSuperseded, agentv1.ErrorReason_ERROR_REASON_SNAPSHOT_SUPERSEDED},
	{ErrTargetGone, agentv1.ErrorReason_ERROR_REASON_TARGET_GONE},
	{ErrTargetAmbiguous, agentv1.ErrorReason_ERROR_REASON_TARGET_AMBIGUOUS},
	{ErrControlHeld, agentv1.ErrorReason_ERROR_REASON_CONTROL_HELD},
	{ErrReadOnlySession, agentv1.ErrorReason_ERROR_REASON_READ_ONLY_SESSION},
	{ErrCapabilityUnavailable, agentv1.ErrorReason_ERROR_REASON_CAPABILITY_UNAVAILABLE},
	{ErrUnsupportedAction, agentv1.ErrorReason_ERROR_REASON_UNSUPPORTED_ACTION},
	{ErrPolicyDenied, agentv1.ErrorReason_ERROR_REASON_POLICY_DENIED},
	{ErrConfirmationRequired, agentv1.ErrorReason_ERROR_REASON_CONFIRMATION_REQUIRED},
	{ErrNotFound, agentv1.ErrorReason_ERROR_REASON_NOT_FOUND},
	{ErrGenerationChanged, agentv1.ErrorReason_ERROR_REASON_GENERATION_CHANGED},
	{ErrTimeout, agentv1.ErrorReason_ERROR_REASON_TIMEOUT},
	{ErrUnavailable, agentv1.ErrorReason_ERROR_REASON_UNAVAILABLE},
	{ErrInterrupted, agentv1.ErrorReason_ERROR_REASON_INTERRUPTED},
	{ErrPermissionDenied, agentv1.ErrorReason_ERROR_REASON_PERMISSION_DENIED},
	{ErrResourceExhausted, agentv1.ErrorReason_ERROR_REASON_RESOURCE_EXHAUSTED},
	{ErrDuplicateRequest, agentv1.ErrorReason_ERROR_REASON_DUPLICATE_REQUEST},
	{ErrInternal, agentv1.ErrorReason_ERROR_REASON_INTERNAL},
	{ErrTargetCovered, agentv1.ErrorReason_ERROR_REASON_TARGET_COVERED},
	{ErrValueMismatch, agentv1.ErrorReason_ERROR_REASON_VALUE_MISMATCH},
	{ErrControlNotHeld, agentv1.ErrorReason_ERROR_REASON_CONTROL_NOT_HELD},
}

// Reason returns the reason of the first error class err wraps, or ERROR_REASON_UNSPECIFIED when it wraps
// none (the caller then treats it as internal).
func Reason(err error) agentv1.ErrorReason {
	for _, c := range classes {
		if errors.Is(err, c.err) {
			return c.reason
		}
	}
	return agentv1.ErrorReason_ERROR_REASON_UNSPECIFIED
}

// FromReason returns the error class for a reason, or nil for an unknown reason.
func FromReason(r agentv1.ErrorReason) error {
	for _, c := range classes {
		if c.reason == r {
			return c.err
		}
	}
	return nil
}
