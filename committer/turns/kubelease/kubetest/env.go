package kubetest

import (
	"errors"
	"os"

	"k8s.io/client-go/rest"
)

// The variables through which a test's child process reaches the server
// (Server.Env writes them, ConfigFromEnv reads them).
const (
	envHost  = "KUBETEST_HOST"
	envToken = "KUBETEST_TOKEN"
	envCA    = "KUBETEST_CA"
)

// Env is what a child process of the test needs to reach the server with
// ConfigFromEnv, as "NAME=value" entries for exec.Cmd.Env.
func (s *Server) Env() []string {
	return []string{
		envHost + "=" + s.Config.Host,
		envToken + "=" + s.Config.BearerToken,
		envCA + "=" + string(s.Config.CAData),
	}
}

// ConfigFromEnv is the admin's config in a child process started with Env.
func ConfigFromEnv() (*rest.Config, error) {
	host := os.Getenv(envHost)
	if host == "" {
		return nil, errors.New("kubetest: " + envHost + " is unset")
	}
	return &rest.Config{
		Host:            host,
		BearerToken:     os.Getenv(envToken),
		TLSClientConfig: rest.TLSClientConfig{CAData: []byte(os.Getenv(envCA))},
		QPS:             -1,
	}, nil
}
