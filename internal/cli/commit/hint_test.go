package commit

import "testing"

// TestFlagHint: the library's hints name its API; the CLI says its flags.
func TestFlagHint(t *testing.T) {
	cases := map[string]string{
		`nothing was committed; to replace "t/a" with a directory, Delete("t/a") and Put in one change set`: `nothing was committed; to replace "t/a" with a directory, pass --delete t/a with the --add in one command`,
		`nothing was committed; to replace "a b" with a file, Delete("a b") and Put in one change set`:      `nothing was committed; to replace "a b" with a file, pass --delete 'a b' with the --add in one command`,
		`to replace "it's" with a file, Delete("it's") and Put in one change set`:                           `to replace "it's" with a file, pass --delete 'it'\''s' with the --add in one command`,
		`branch does not exist; create it from a base (CreateBranchFrom)`:                                   `branch does not exist; create it from a base (--create-branch-from)`,
		`raise the attempt limit (WithRetries) or spread the writers out`:                                   `raise the attempt limit (--max-attempts) or spread the writers out`,
		`choose another tag name, or move the tag with TagSpec.Force`:                                       `choose another tag name, or move the tag with --tag-force`,
	}
	for in, want := range cases {
		if got := flagHint(in); got != want {
			t.Errorf("flagHint(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}
