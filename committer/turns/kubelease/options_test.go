package kubelease_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/turns"
	"github.com/ghcommitter/ghcommitter/committer/turns/kubelease"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes/fake"
)

func TestOptionsRefuseNonsense(t *testing.T) {
	c := fake.NewClientset().CoordinationV1() // never called: New makes no request
	for name, opts := range map[string][]kubelease.Option{
		"empty identity":    {kubelease.WithIdentity("")},
		"slash in identity": {kubelease.WithIdentity("a/b")},
		"zero duration":     {kubelease.WithLeaseDuration(0)},
		"negative wait":     {kubelease.WithWait(-time.Second)},
		"nil logger":        {kubelease.WithLogger(nil)},
	} {
		if _, err := kubelease.New(c, "ns", opts...); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
	if _, err := kubelease.New(nil, "ns"); err == nil {
		t.Error("New accepted a nil client")
	}
	if _, err := kubelease.New(c, ""); err == nil {
		t.Error("New accepted no namespace")
	}
}

func TestLeaseNameIsAValidName(t *testing.T) {
	for _, k := range []turns.Key{
		{},
		{API: "https://ghe.example.com/api/v3/", Repository: "Org/Repo.With.Dots", Branch: "feature/ÜBER-long/" + strings.Repeat("x", 300)},
		{API: "https://api.github.com/", Repository: "a/b", Branch: "c\x00d"},
	} {
		name := kubelease.LeaseName(k)
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			t.Errorf("LeaseName(%q) = %q: %v", k, name, errs)
		}
	}
	a := turns.Key{API: "x", Repository: "a/b", Branch: "c"}
	b := turns.Key{API: "x", Repository: "a", Branch: "b/c"}
	if kubelease.LeaseName(a) == kubelease.LeaseName(b) {
		t.Error("keys that differ only in where a / falls share a Lease")
	}
}
