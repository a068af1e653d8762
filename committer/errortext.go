package committer

import (
	"fmt"
	"strings"

	"github.com/google/go-github/v66/github"
)

// causeText is err's message with any GitHub error reply in it said
// plainly: "GET URL: 401 Bad credentials", its field errors after it when
// there are any, never go-github's empty " []".
func causeText(err error) string {
	s := err.Error()
	er, ok := errorResponse(err)
	if !ok || er.Response == nil || er.Response.Request == nil {
		return s
	}
	return strings.Replace(s, er.Error(), errorResponseText(er), 1)
}

func errorResponseText(er *github.ErrorResponse) string {
	req := er.Response.Request
	s := fmt.Sprintf("%s %s: %d %s", req.Method, req.URL, er.Response.StatusCode, er.Message)
	var fields []string
	for _, e := range er.Errors {
		switch {
		case e.Message != "":
			fields = append(fields, e.Message)
		case e.Field != "" || e.Code != "":
			fields = append(fields, strings.TrimSpace(e.Resource+" "+e.Field+" "+e.Code))
		}
	}
	if len(fields) > 0 {
		s += " (" + strings.Join(fields, "; ") + ")"
	}
	return s
}
