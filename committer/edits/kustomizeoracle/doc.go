// Package kustomizeoracle checks edits.SetImage against kustomize's own
// `kustomize edit set image`. It is a module of its own so that kustomize
// and its dependencies stay out of ghcommitter's go.mod: only this test
// needs them.
package kustomizeoracle
