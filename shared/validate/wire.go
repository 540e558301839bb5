package validate

// Bounds checked on the wire, before a request is decoded (shared/wirecodec asks these), so that a request
// far over its bounds costs its sender the upload and the server a scan of its tags, never a decode of
// megabytes it will refuse anyway.
const (
	// MaxRequestBytes bounds a whole request message: the largest valid one is a WriteClipboard or paste of
	// MaxClipboardBytes of text plus its framing. Servers refuse larger ones unread (RESOURCE_EXHAUSTED).
	MaxRequestBytes = MaxClipboardBytes + 64<<10
	// MaxStringBytes bounds every string field of a request not in largeText: none is valid beyond 64 KiB
	// (typed and filled text, element text and text matches are at most 65536 bytes, everything else less).
	MaxStringBytes = 65536
)

// largeText are the string fields that may hold more than MaxStringBytes, with their bound.
var largeText = map[string]int{
	"glovebox.agent.v1.WriteClipboardRequest.text": MaxClipboardBytes,
	"glovebox.agent.v1.Paste.text":                 MaxPasteBytes,
	"glovebox.agent.v1.Paste.html":                 MaxPasteBytes,
}

// StringBound returns the most bytes the string field named fullName (a protobuf full name,
// "glovebox.agent.v1.TypeText.text") may hold in any valid request: the bound wirecodec checks before
// decoding. Validation checks each field's own, tighter, bound afterwards.
func StringBound(fullName string) int {
	if n, ok := largeText[fullName]; ok {
		return n
	}
	return MaxStringBytes
}
