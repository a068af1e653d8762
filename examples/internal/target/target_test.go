package target

import (
	"context"
	"flag"
	"io"
	"testing"
)

func TestOpen(t *testing.T) {
	fake, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	if _, ok := fake.Fake.Head(FakeOwner, FakeName, "main"); !ok || fake.Where != "embedded fake GitHub" {
		t.Errorf("fake target %+v: no %s/%s with a main branch", fake, FakeOwner, FakeName)
	}

	t.Setenv("GITHUB_API_URL", "")
	gh, err := Open("you/scratch")
	if err != nil {
		t.Fatal(err)
	}
	if gh.Fake != nil || gh.Owner != "you" || gh.Name != "scratch" || gh.Where != DefaultAPI {
		t.Errorf("GitHub target %+v", gh)
	}
	t.Setenv("GITHUB_API_URL", "https://ghes.example/")
	if ghes, err := Open("you/scratch"); err != nil || ghes.Where != "https://ghes.example/" {
		t.Errorf("with GITHUB_API_URL: %+v, %v", ghes, err)
	}
	if _, err := Open("scratch"); err == nil {
		t.Error(`Open("scratch") did not fail`)
	}
}

func TestConnect(t *testing.T) {
	tg, err := Connect(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if tg.Committer == nil {
		t.Error("no Committer")
	}
	t.Setenv("GITHUB_TOKEN", "")
	if _, err := Connect(context.Background(), "you/scratch"); err == nil {
		t.Error("Connect to GitHub without GITHUB_TOKEN did not fail")
	}
}

func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		opts int
	}{
		{nil, 0},
		{[]string{"-branch", "try", "-from", "try"}, 0},
		{[]string{"-branch", "try"}, 1},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f := DefineFlags(fs, "GITHUB_TOKEN", "branch to commit to")
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if len(f.CommitOptions()) != tc.opts {
			t.Errorf("%q: %d commit options, want %d", tc.args, len(f.CommitOptions()), tc.opts)
		}
	}
}
