package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Without git on PATH, the go-git fallback reads the configuration git
// would read, in git's order (later wins): the system file (unless
// GIT_CONFIG_NOSYSTEM; GIT_CONFIG_SYSTEM names another), the global files
// (GIT_CONFIG_GLOBAL, or $XDG_CONFIG_HOME/git/config, ~/.config/git/config
// and ~/.gitconfig), the repository's config (config.worktree too when
// extensions.worktreeConfig is set), and GIT_CONFIG_COUNT's pairs. An
// [include] is followed; an [includeIf], whose conditions only git judges,
// makes the fallback refuse to run rather than guess.

// gitConfig is the configuration files git reads, in its order.
type gitConfig struct {
	files  []*config.Config
	extra  [][2]string // GIT_CONFIG_KEY_n, GIT_CONFIG_VALUE_n
	getenv func(string) string
}

// errIncludeIf is the fallback refusing a configuration it cannot judge.
var errIncludeIf = errors.New("uses [includeIf], which only git can evaluate")

func loadGitConfig(getenv func(string) string, commonDir, gitDir string) (*gitConfig, error) {
	c := &gitConfig{getenv: getenv}
	var paths []string
	if b, err := strconv.ParseBool(getenv("GIT_CONFIG_NOSYSTEM")); err != nil || !b {
		paths = append(paths, orDefault(getenv("GIT_CONFIG_SYSTEM"), "/etc/gitconfig"))
	}
	if g := getenv("GIT_CONFIG_GLOBAL"); g != "" {
		paths = append(paths, g)
	} else {
		paths = append(paths, xdgConfig(getenv, "config"), filepath.Join(getenv("HOME"), ".gitconfig"))
	}
	paths = append(paths, filepath.Join(commonDir, "config"))
	for _, p := range paths {
		if err := c.read(p, 0); err != nil {
			return nil, err
		}
	}
	if v, ok := c.get("extensions", "worktreeConfig"); ok && gitBool(v) {
		if err := c.read(filepath.Join(gitDir, "config.worktree"), 0); err != nil {
			return nil, err
		}
	}
	n, _ := strconv.Atoi(getenv("GIT_CONFIG_COUNT"))
	for i := range n {
		c.extra = append(c.extra, [2]string{getenv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i)), getenv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i))})
	}
	return c, nil
}

// read adds the configuration file p (absent: nothing) and the files it
// includes.
func (c *gitConfig) read(p string, depth int) error {
	if p == "" || depth > 10 {
		return nil
	}
	b, err := os.ReadFile(p) //nolint:gosec // G304: git's own configuration files
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return nil
	}
	if err != nil {
		return err
	}
	cfg := config.New()
	if err := config.NewDecoder(bytes.NewReader(b)).Decode(cfg); err != nil {
		return fmt.Errorf("read git configuration %s: %w", p, err)
	}
	c.files = append(c.files, cfg)
	for _, s := range cfg.Sections {
		switch {
		case s.IsName("includeIf"):
			return fmt.Errorf("git configuration %s %w", p, errIncludeIf)
		case s.IsName("include"):
			for _, inc := range s.Options.GetAll("path") {
				inc = c.expand(inc)
				if !filepath.IsAbs(inc) {
					inc = filepath.Join(filepath.Dir(p), inc)
				}
				if err := c.read(inc, depth+1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// get returns the last value of section.key, and whether there is one.
func (c *gitConfig) get(section, key string) (string, bool) {
	for i := len(c.extra) - 1; i >= 0; i-- {
		if strings.EqualFold(c.extra[i][0], section+"."+key) {
			return c.extra[i][1], true
		}
	}
	for i := len(c.files) - 1; i >= 0; i-- {
		for j := len(c.files[i].Sections) - 1; j >= 0; j-- {
			s := c.files[i].Sections[j]
			if s.IsName(section) && s.Options.Has(key) {
				return s.Options.Get(key), true
			}
		}
	}
	return "", false
}

// fileMode is core.fileMode: false means the executable bit on disk is not
// to be trusted.
func (c *gitConfig) fileMode() bool {
	v, ok := c.get("core", "fileMode")
	return !ok || gitBool(v)
}

// excludes reads the patterns of the global excludes file: core.excludesFile,
// or git's default, $XDG_CONFIG_HOME/git/ignore (~/.config/git/ignore).
func (c *gitConfig) excludes(top string) ([]gitignore.Pattern, error) {
	p, ok := c.get("core", "excludesFile")
	if ok {
		if p = c.expand(p); p != "" && !filepath.IsAbs(p) {
			p = filepath.Join(top, p)
		}
	} else {
		p = xdgConfig(c.getenv, "ignore")
	}
	return readPatternFile(p, nil)
}

// readPatternFile reads the ignore patterns of file p (absent: none),
// relative to the directory domain.
func readPatternFile(p string, domain []string) ([]gitignore.Pattern, error) {
	if p == "" {
		return nil, nil
	}
	f, err := os.Open(p) //nolint:gosec // G304: an ignore file git would read
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close() //nolint:errcheck // read only
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		s := strings.TrimSuffix(sc.Text(), "\r")
		if !strings.HasPrefix(s, "#") && strings.TrimSpace(s) != "" {
			ps = append(ps, gitignore.ParsePattern(s, domain))
		}
	}
	return ps, sc.Err()
}

// expand is git's pathname expansion of a leading "~/".
func (c *gitConfig) expand(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(c.getenv("HOME"), rest)
	}
	return p
}

// xdgConfig is git's $XDG_CONFIG_HOME/git/name, ~/.config/git/name when
// XDG_CONFIG_HOME is unset or empty ("" without a HOME).
func xdgConfig(getenv func(string) string, name string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", name)
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "git", name)
	}
	return ""
}

// gitBool is git's reading of a boolean value ("" is true: a key alone).
func gitBool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "false", "no", "off", "0":
		return false
	}
	return true
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
