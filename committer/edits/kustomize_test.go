package edits

import (
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
	"go.yaml.in/yaml/v3"
)

const kustomization = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
# the stage's images
images:
- name: api
  newName: ghcr.io/acme/api # moved registries
  newTag: "1.0"
- name: worker
  digest: sha256:1111
resources:
  - deployment.yaml
`

// kustomizeSetImage is what `kustomize edit set image` does to the list,
// from its documented semantics (kustomize/commands/edit/set/setimage.go):
// the entry named img.Name is replaced by img, "*" keeping the old field;
// others are kept; kustomize sorts by name, which is not compared.
func kustomizeSetImage(list []Image, img Image) []Image {
	var out []Image
	for _, im := range list {
		if im.Name == img.Name {
			if img.NewName == Preserve {
				img.NewName = im.NewName
			}
			if img.NewTag == Preserve {
				img.NewTag = im.NewTag
			}
			if img.Digest == Preserve {
				img.Digest = im.Digest
			}
			continue
		}
		out = append(out, im)
	}
	for _, p := range []*string{&img.NewName, &img.NewTag, &img.Digest} {
		if *p == Preserve {
			*p = ""
		}
	}
	return append(out, img)
}

func imagesOf(t *testing.T, src []byte) []Image {
	var k struct {
		Images []struct {
			Name    string `yaml:"name"`
			NewName string `yaml:"newName"`
			NewTag  string `yaml:"newTag"`
			Digest  string `yaml:"digest"`
		} `yaml:"images"`
	}
	if err := yaml.Unmarshal(src, &k); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	var out []Image
	for _, im := range k.Images {
		out = append(out, Image(im))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func TestSetImageMatchesKustomize(t *testing.T) {
	for _, src := range []string{kustomization, "", "resources:\n- a.yaml\n", "images: []\n", "images:\n  - name: api\n    newTag: \"0.9\"\n"} {
		for _, arg := range []string{"api:1.1", "api@sha256:2222", "api=ghcr.io/other/api:2.0", "api=ghcr.io/other/api", "worker:3", "new=reg/new@sha256:3333", "db:5.7", "api=*:1.2"} {
			img, err := ParseImage(arg)
			if err != nil {
				t.Fatal(err)
			}
			out, err := SetImage(img)([]byte(src), src != "")
			if err != nil {
				t.Fatalf("%q on %q: %v", arg, src, err)
			}
			want := kustomizeSetImage(imagesOf(t, []byte(src)), img)
			sort.Slice(want, func(i, j int) bool { return want[i].Name < want[j].Name })
			if got := imagesOf(t, out); !reflect.DeepEqual(got, want) {
				t.Fatalf("%q on %q:\n got %+v\nwant %+v\n%s", arg, src, got, want, out)
			}
			// Everything but images: is as it was.
			var a, b map[string]any
			_ = yaml.Unmarshal([]byte(src), &a)
			_ = yaml.Unmarshal(out, &b)
			delete(a, "images")
			delete(b, "images")
			if len(a) == 0 {
				a = nil
			}
			if len(b) == 0 {
				b = nil
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%q: other keys changed:\n%s", arg, out)
			}
		}
	}
}

func TestSetImageKeepsBytes(t *testing.T) {
	out, err := SetImage(Image{Name: "api", NewName: Preserve, NewTag: "1.1"})([]byte(kustomization), true)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(kustomization, `newTag: "1.0"`, `newTag: "1.1"`, 1)
	if string(out) != want {
		t.Fatalf("diff:\n%s", lineDiff(want, string(out)))
	}
	out, err = SetImage(Image{Name: "db", NewTag: "5.7"})([]byte(kustomization), true)
	if err != nil {
		t.Fatal(err)
	}
	want = strings.Replace(kustomization, "  digest: sha256:1111\n", "  digest: sha256:1111\n- name: db\n  newTag: \"5.7\"\n", 1)
	if string(out) != want {
		t.Fatalf("diff:\n%s", lineDiff(want, string(out)))
	}
}

func TestParseImageRefused(t *testing.T) {
	for _, arg := range []string{"", "api", "=x", "api=", "a b:1"} {
		if _, err := ParseImage(arg); err == nil {
			t.Errorf("ParseImage(%q): no error", arg)
		}
	}
	_, err := SetImage(Image{Name: "api", NewTag: "1"})([]byte("images: nope\n"), true)
	if !errors.Is(err, committer.ErrInvalid) {
		t.Fatalf("err = %v", err)
	}
}
