package cli

import (
	"bytes"
	"encoding/json"
	"github.com/ghcommitter/ghcommitter/internal/cli/input"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

const promotionManifest = `# Promote api 1.21 to staging.
message: Promote api 1.21 to staging
trailers: ["Promoted-By: pipeline"]
put:
  - path: stages/staging/VERSION
    text: "1.21\n"
  - path: stages/staging/logo.bin
    base64: AAEC/w==
  - path: stages/staging/notes.txt
    file: notes.txt
delete: [stages/staging/old.yaml]
sync:
  - local: rendered
    remote: stages/staging/rendered
set:
  - path: stages/staging/values.yaml
    key: image.tag
    value: 1.21
  - path: stages/config.json
    key: stages.staging
    value: "1.21"
    string: true
set-image:
  - path: stages/staging/kustomization.yaml
    image: api:1.21
  - path: stages/staging/kustomization.yaml
    name: worker
    digest: sha256:2222
expect-absent: [stages/staging/LOCK]
`

func promotionFake(t *testing.T) *githubtest.TestServer {
	return fake(t,
		githubtest.File{Path: "stages/staging/values.yaml", Content: []byte("# staging\nimage:\n  tag: \"1.20\" # pinned\n")},
		githubtest.File{Path: "stages/staging/kustomization.yaml", Content: []byte("resources: [rendered/app.yaml]\nimages:\n- name: api\n  newTag: \"1.20\"\n")},
		githubtest.File{Path: "stages/staging/old.yaml", Content: []byte("x\n")},
		githubtest.File{Path: "stages/staging/rendered/stale.yaml", Content: []byte("x\n")},
		githubtest.File{Path: "stages/config.json", Content: []byte("{\n  \"stages\": {\n    \"prod\": \"1.19\"\n  }\n}\n")})
}

func writeManifestDir(t *testing.T, manifest string) string {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "promotion.yaml"), manifest, 0o644)
	writeFile(t, filepath.Join(dir, "notes.txt"), "notes\n", 0o644)
	writeFile(t, filepath.Join(dir, "rendered", "app.yaml"), "kind: Deployment\n", 0o644)
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "promotion.yaml")
}

func TestManifestCarriesAWholePromotion(t *testing.T) {
	srv := promotionFake(t)
	file := writeManifestDir(t, promotionManifest)
	newCLI(t).run(commitArgs(srv, "--manifest", file, "--trailer", "Ticket=OPS-1")...).wantCode(t, 0)
	for p, want := range map[string]string{
		"stages/staging/VERSION":            "1.21\n",
		"stages/staging/logo.bin":           "\x00\x01\x02\xff",
		"stages/staging/notes.txt":          "notes\n",
		"stages/staging/rendered/app.yaml":  "kind: Deployment\n",
		"stages/staging/values.yaml":        "# staging\nimage:\n  tag: \"1.21\" # pinned\n",
		"stages/config.json":                "{\n  \"stages\": {\n    \"prod\": \"1.19\",\n    \"staging\": \"1.21\"\n  }\n}\n",
		"stages/staging/kustomization.yaml": "resources: [rendered/app.yaml]\nimages:\n- name: api\n  newTag: \"1.21\"\n- name: worker\n  digest: sha256:2222\n",
	} {
		if got, _ := readFile(t, srv, "main", p); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	for _, gone := range []string{"stages/staging/old.yaml", "stages/staging/rendered/stale.yaml"} {
		if _, _, err := srv.ReadFile("acme", "mono", "main", gone); err == nil {
			t.Errorf("%s is still there", gone)
		}
	}
	hist, _ := srv.History("acme", "mono", "main")
	msg := hist[0].Message
	if !strings.HasPrefix(msg, "Promote api 1.21 to staging\n") || !strings.Contains(msg, "Promoted-By: pipeline\nTicket: OPS-1") {
		t.Errorf("message = %q", msg)
	}
}

func TestManifestFlagsWinAndAdd(t *testing.T) {
	srv := promotionFake(t)
	file := writeManifestDir(t, "message: from the manifest\nbranch: nope\nset:\n  - {path: stages/staging/values.yaml, key: image.tag, value: '1.21'}\n")
	newCLI(t).run(commitArgs(srv, "--manifest", file, "-m", "from the flag", "-b", "main",
		"--set", "stages/staging/values.yaml:image.tag=1.22", "--delete", "stages/staging/old.yaml")...).wantCode(t, 0)
	hist, _ := srv.History("acme", "mono", "main")
	if !strings.HasPrefix(hist[0].Message, "from the flag") {
		t.Errorf("message = %q", hist[0].Message)
	}
	if got, _ := readFile(t, srv, "main", "stages/staging/values.yaml"); !strings.Contains(got, `tag: "1.22"`) {
		t.Errorf("values.yaml = %q: the flag's --set applies after the manifest's", got)
	}
	if _, _, err := srv.ReadFile("acme", "mono", "main", "stages/staging/old.yaml"); err == nil {
		t.Error("the flag's --delete did not apply")
	}
}

func TestManifestJSONOnStdin(t *testing.T) {
	srv := promotionFake(t)
	c := newCLI(t)
	c.stdin = `{"message": "m", "set": [{"path": "stages/staging/values.yaml", "key": "image.tag", "value": "1.23"}]}`
	c.run(commitArgs(srv, "--manifest", "-")...).wantCode(t, 0)
	if got, _ := readFile(t, srv, "main", "stages/staging/values.yaml"); !strings.Contains(got, `tag: "1.23" # pinned`) {
		t.Errorf("values.yaml = %q", got)
	}
}

func TestManifestDryRunWritesNothing(t *testing.T) {
	srv := promotionFake(t)
	file := writeManifestDir(t, promotionManifest)
	r := newCLI(t).run(commitArgs(srv, "--manifest", file, "--dry-run")...)
	r.wantCode(t, 0)
	for _, p := range []string{"stages/staging/values.yaml", "stages/staging/VERSION", "stages/staging/old.yaml"} {
		if !strings.Contains(r.stdout, p) {
			t.Errorf("plan does not list %s:\n%s", p, r.stdout)
		}
	}
	if writes(srv) != 0 {
		t.Errorf("%d writes", writes(srv))
	}
}

// badManifests are refused with exit 2 before any request, naming the line.
var badManifests = []struct {
	name, doc string
	line      string // "promotion.yaml:N:"
	schema    bool   // the schema refuses it too
}{
	{"unknown key", "message: m\nputs: []\n", ":2:", true},
	{"unknown entry key", "message: m\nput:\n  - path: a\n    txt: x\n", ":4:", true},
	{"two sources", "message: m\nput:\n  - path: a\n    text: x\n    base64: eA==\n", ":3:", true},
	{"no source", "message: m\nput:\n  - path: a\n", ":3:", true},
	{"wrong type", "message: m\ndelete: a\n", ":2:", true},
	{"bad path", "message: m\ndelete: [a/../b]\n", ":2:", true},
	{"bad sha", "message: m\nexpect-sha:\n  - {path: a, sha: abc}\n", ":3:", true},
	{"bad base64", "message: m\nput:\n  - {path: a, base64: '***'}\n", ":3:", false},
	{"bad key", "message: m\nset:\n  - {path: a.yaml, key: 'a..b', value: 1}\n", ":3:", false},
	{"mapping value", "message: m\nset:\n  - path: a.yaml\n    key: a\n    value: {x: 1}\n", ":3:", true},
	{"image and name", "message: m\nset-image:\n  - {path: k.yaml, image: 'api:1', name: api}\n", ":3:", true},
	{"commands", "message: m\n\nedit:\n  - {path: a, command: 'echo hi'}\n", ":4:", false},
	{"two documents", "message: m\n---\nmessage: n\n", ":2:", false},
	{"missing sync dir", "message: m\nsync:\n  - {local: nothere, remote: deploy}\n", ":3:", false},
	{"bad trailer", "message: m\ntrailers:\n  - 'no separator'\n", ":3:", true},
	{"bad author", "message: m\nauthor: nobody\n", ":2:", true},
	{"bad branch", "message: m\nbranch: 'a..b'\n", ":2:", false},
	{"absolute local", "message: m\nput:\n  - {path: a, file: /etc/passwd}\n", ":3:", false},
	{"local out of the directory", "message: m\nput:\n  - {path: a, file: ../x}\n", ":3:", false},
	{"symlink out of the directory", "message: m\nsync:\n  - {local: out, remote: deploy}\n", ":3:", false},
}

func TestManifestErrorsPointAtTheLine(t *testing.T) {
	for _, c := range badManifests {
		t.Run(c.name, func(t *testing.T) {
			srv := promotionFake(t)
			r := newCLI(t).run(commitArgs(srv, "--manifest", writeManifestDir(t, c.doc))...)
			r.wantCode(t, 2)
			if !strings.Contains(r.stderr, "promotion.yaml"+c.line) {
				t.Errorf("stderr = %q, want it to point at promotion.yaml%s", r.stderr, c.line)
			}
			if srv.CountMethod("GET")+writes(srv) != 0 {
				t.Errorf("requests were sent")
			}
		})
	}
}

func TestManifestCommandsNeedAllowCommands(t *testing.T) {
	srv := promotionFake(t)
	file := writeManifestDir(t, "message: m\nedit:\n  - {path: counter.txt, command: 'echo 1'}\n")
	newCLI(t).run(commitArgs(srv, "--manifest", file)...).wantCode(t, 2)
	newCLI(t).run(commitArgs(srv, "--manifest", file, "--allow-commands")...).wantCode(t, 0)
	if got, _ := readFile(t, srv, "main", "counter.txt"); got != "1\n" {
		t.Errorf("counter.txt = %q", got)
	}
	newCLI(t).run(commitArgs(srv, "-m", "m", "--allow-commands", "--delete", "x")...).wantCode(t, 2)
}

func TestManifestOnStdinCannotPutStdin(t *testing.T) {
	srv := promotionFake(t)
	c := newCLI(t)
	c.stdin = "message: m\nput:\n  - {path: a.txt, file: '-'}\n"
	r := c.run(commitArgs(srv, "--manifest", "-")...)
	r.wantCode(t, 2)
	if !strings.Contains(r.stderr, ":3:") || !strings.Contains(r.stderr, "stdin") {
		t.Errorf("stderr = %q", r.stderr)
	}
	// A manifest in a file may put stdin, but not beside --add X=-.
	file := writeManifestDir(t, c.stdin)
	newCLI(t).run(commitArgs(srv, "--manifest", file, "--add", "b.txt=-")...).wantCode(t, 2)
	if writes(srv) != 0 {
		t.Errorf("%d writes", writes(srv))
	}
}

func compileManifestSchema(t *testing.T) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(manifestSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("manifest.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("manifest.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// asJSONValue turns a YAML manifest into the JSON value the schema checks.
func asJSONValue(t *testing.T, doc string) any {
	var x any
	if err := yaml.Unmarshal([]byte(doc), &x); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestManifestSchemaAgreesWithTheParser: the schema the CLI prints accepts
// the manifests the CLI takes (the tests' and the example's) and refuses
// the malformed ones the CLI refuses.
func TestManifestSchemaAgreesWithTheParser(t *testing.T) {
	r := newCLI(t).run("schema", "manifest")
	r.wantCode(t, 0)
	if r.stdout != string(manifestSchema) {
		t.Fatal("ghcommitter schema manifest does not print manifest.schema.json")
	}
	s := compileManifestSchema(t)
	good := []string{promotionManifest, "message: m\nbranch: b\ncreate-branch-from: main\nauthor: A <a@b.c>\npull-request: {base: main, title: t, body: b, draft: true}\nunset:\n  - {path: a.yaml, key: a, must-exist: true}\nexpect-sha:\n  - {path: a, sha: '0123456789012345678901234567890123456789'}\nedit:\n  - {path: a, command: x}\n"}
	example, err := os.ReadFile(filepath.Join(repoRoot, "internal/promotion/manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	good = append(good, string(example))
	// The manifest docs/cli.md shows.
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs/cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "## The change manifest")
	_, block, _ := strings.Cut(section, "```yaml\n")
	block, _, _ = strings.Cut(block, "```")
	if !strings.Contains(block, "set-image:") {
		t.Fatal("docs/cli.md shows no manifest")
	}
	good = append(good, block)
	for _, doc := range good {
		if _, err := input.ParseManifest([]byte(doc)); err != nil {
			t.Errorf("parser refuses a good manifest: %v\n%s", err, doc)
		}
		if err := s.Validate(asJSONValue(t, doc)); err != nil {
			t.Errorf("schema refuses a good manifest: %v\n%s", err, doc)
		}
	}
	for _, c := range badManifests {
		if c.schema {
			if err := s.Validate(asJSONValue(t, c.doc)); err == nil {
				t.Errorf("%s: the schema accepts it", c.name)
			}
		}
	}
}

// TestActionStructuredInputs: the action's set, unset, set-image and
// manifest inputs become one flag per line, never split on spaces.
func TestActionStructuredInputs(t *testing.T) {
	for _, shape := range actionShapes {
		t.Run(shape, func(t *testing.T) {
			args, err := actionRun(t, actionJSON(t, shape, map[string]string{
				"repo":       "acme/mono",
				"set":        "deploy/values.yaml:image.tag=1.2 $(x)\n\n  c.json:a\\.b=x y  \n",
				"set-string": "v.yaml:tag=1.20", "unset": "v.yaml:old", "set-image": "k/kustomization.yaml:api:1.2",
				"must-exist": "true", "manifest": "promotions/staging.yaml", "allow-commands": "false",
			}), nil)
			if err != nil {
				t.Fatal(err)
			}
			out := "<" + strings.Join(args, ">\n<") + ">\n"
			for _, want := range []string{
				"<commit>\n", "<--repo>\n<acme/mono>\n",
				"<--set>\n<deploy/values.yaml:image.tag=1.2 $(x)>\n<--set>\n<c.json:a\\.b=x y>\n",
				"<--set-string>\n<v.yaml:tag=1.20>\n", "<--unset>\n<v.yaml:old>\n",
				"<--set-image>\n<k/kustomization.yaml:api:1.2>\n", "<--must-exist>\n",
				"<--manifest>\n<promotions/staging.yaml>\n", "<-->\n",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("arguments lack %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "<--allow-commands>") || strings.Contains(out, "<--message>") {
				t.Errorf("arguments pass a switch that is off, or an empty message:\n%s", out)
			}
		})
	}
}

// TestManifestAndFlagsAreOneChangeSet: a path the manifest puts and a flag
// puts too is a double claim of one change set, refused before any write.
func TestManifestAndFlagsAreOneChangeSet(t *testing.T) {
	srv := promotionFake(t)
	file := writeManifestDir(t, "message: m\nput:\n  - {path: stages/staging/VERSION, text: \"1\\n\"}\n")
	local := filepath.Join(t.TempDir(), "v")
	writeFile(t, local, "2\n", 0o644)
	r := newCLI(t).run(commitArgs(srv, "--manifest", file, "--add", "stages/staging/VERSION="+local)...)
	r.wantCode(t, 2)
	if !strings.Contains(r.stderr, "stages/staging/VERSION") || writes(srv) != 0 {
		t.Errorf("stderr = %q, %d writes", r.stderr, writes(srv))
	}
}
