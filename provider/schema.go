package provider

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/blang/semver"
	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/integration"
)

// Schema is the provider's package schema, indented JSON: what the engine
// gets from GetSchema and what schema.json holds.
func Schema(ctx context.Context) (string, error) {
	prov, err := New()
	if err != nil {
		return "", err
	}
	srv, err := integration.NewServer(ctx, Name, semver.MustParse(Version), integration.WithProvider(prov))
	if err != nil {
		return "", err
	}
	resp, err := srv.GetSchema(p.GetSchemaRequest{})
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(resp.Schema), "", "  "); err != nil {
		return "", err
	}
	return out.String(), nil
}
