package ghclient

import (
	"net/url"
	"testing"
)

// The Git LFS batch API is on github.com for api.github.com, on the API's
// own host elsewhere: credentials may go there and nowhere else.
func TestAPIHostsLFS(t *testing.T) {
	for api, cases := range map[string]map[string]bool{
		"https://api.github.com/": {
			"https://github.com/o/r.git/info/lfs/objects/batch": true,
			"https://uploads.github.com/x":                      true,
			"http://github.com/o/r.git/info/lfs/objects/batch":  false,
			"https://gist.github.com/o/r.git/info/lfs":          false,
			"https://github.com.evil.example/o/r.git":           false,
			"https://github-cloud.githubusercontent.com/x":      false,
		},
		"https://ghe.example.com/api/v3/": {
			"https://ghe.example.com/o/r.git/info/lfs/objects/batch": true,
			"https://github.com/o/r.git/info/lfs/objects/batch":      false,
		},
		"http://127.0.0.1:8080/": {
			"http://127.0.0.1:8080/o/r.git/info/lfs/objects/batch": true,
			"http://localhost:8080/o/r.git/info/lfs/objects/batch": false,
			"https://github.com/o/r.git/info/lfs/objects/batch":    false,
		},
	} {
		base, upload, err := resolveBaseURL(api)
		if err != nil {
			t.Fatal(err)
		}
		hosts := newAPIHosts(base, upload)
		for raw, want := range cases {
			u, _ := url.Parse(raw)
			if got := hosts.allows(u); got != want {
				t.Errorf("API %s: credentials to %s allowed = %v, want %v", api, raw, got, want)
			}
		}
	}
}
