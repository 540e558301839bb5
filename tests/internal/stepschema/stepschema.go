// Package stepschema validates a recording's steps.jsonl against docs/recording-step.schema.json with a JSON
// Schema validator nobody here wrote: Debian's python3-jsonschema, run by Debian's python3.
package stepschema

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"glovebox.dev/shared/testenv"
	"glovebox.dev/tests/internal/agenttest"
)

// Python is Debian's interpreter (a pyenv or venv python on PATH may lack python3-jsonschema).
const Python = "/usr/bin/python3"

// validate checks every line of the steps.jsonl in argv[2] against the schema in argv[1] (itself checked as a
// 2020-12 schema) and prints one line per error; it exits 1 on any error or an empty file.
const validate = `
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
bad = 0
n = 0
for n, line in enumerate(open(sys.argv[2]), 1):
    for e in v.iter_errors(json.loads(line)):
        print("line %d: %s: %s" % (n, e.json_path, e.message))
        bad += 1
print("%d lines" % n)
sys.exit(1 if bad or n == 0 else 0)
`

// Need calls testenv.Missing unless Debian's python3 imports jsonschema.
func Need(t testing.TB) {
	t.Helper()
	if err := exec.Command(Python, "-c", "import jsonschema").Run(); err != nil {
		testenv.Missing(t, "python3-jsonschema not installed for "+Python)
	}
}

// Check validates the steps.jsonl at path (the validator killed after 30 s) and returns the validator's
// output; the error is non-nil when a line does not validate (or the file is empty).
func Check(t testing.TB, path string) (string, error) {
	t.Helper()
	schema := filepath.Join(agenttest.RepoRoot(t), "docs", "recording-step.schema.json")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, Python, "-c", validate, schema, path).CombinedOutput()
	return string(out), err
}
