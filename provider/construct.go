package provider

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	comProvider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
)

// component is infer.ComponentF(fn) whose construct also fills the fields
// of the Args' embedded structs (Container, JobRun, Distributed), so that the settings
// the workload kinds share are written once and embedded. infer's schema
// already lists an embedded struct's fields as the component's own inputs
// (reflect.VisibleFields in propertyListFromType, pulumi-go-provider
// v1.5.0 infer/schema.go), but the construct it generates copies the
// inputs into the Args' top-level fields only (constructInputsCopyTo,
// pulumi/sdk v3.276.0 go/pulumi/provider.go), which would drop every
// embedded setting. Everything else (schema, token) is infer's.
func component[A any, R pulumi.ComponentResource](fn func(*pulumi.Context, string, A, ...pulumi.ResourceOption) (R, error)) infer.InferredComponent {
	return embeddingComponent[A, R]{InferredComponent: infer.ComponentF(fn), fn: fn}
}

type embeddingComponent[A any, R pulumi.ComponentResource] struct {
	infer.InferredComponent
	fn func(*pulumi.Context, string, A, ...pulumi.ResourceOption) (R, error)
}

// Construct is infer's construct (pulumi-go-provider v1.5.0
// infer/component.go) with copyInputs in place of inputs.CopyTo.
func (c embeddingComponent[A, R]) Construct(ctx context.Context, req p.ConstructRequest) (p.ConstructResponse, error) {
	return p.ProgramConstruct(ctx, req, func(ctx *pulumi.Context, _, _ string, inputs comProvider.ConstructInputs, opts pulumi.ResourceOption) (*comProvider.ConstructResult, error) {
		var args A
		if err := copyInputs(inputs, reflect.ValueOf(&args).Elem()); err != nil {
			return nil, fmt.Errorf("failed to copy inputs for %s (%s): %w", req.Urn.Name(), req.Urn.Type(), err)
		}
		res, err := c.fn(ctx, req.Urn.Name(), args, opts)
		if err != nil {
			return nil, err
		}
		if err := ctx.RegisterResourceOutputs(res, pulumi.ToMap(outputsOf(res))); err != nil {
			return nil, err
		}
		return comProvider.NewConstructResult(res)
	})
}

// copyInputs copies the inputs into the struct v's own fields, then into
// those of each embedded struct.
func copyInputs(inputs comProvider.ConstructInputs, v reflect.Value) error {
	if err := inputs.CopyTo(v.Addr().Interface()); err != nil {
		return err
	}
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.Anonymous && f.Type.Kind() == reflect.Struct {
			if err := copyInputs(inputs, v.Field(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// outputsOf maps a component's pulumi-tagged fields (its own and promoted)
// to its outputs, as infer does (introspect.StructToMap).
func outputsOf(res any) map[string]any {
	v := reflect.Indirect(reflect.ValueOf(res))
	m := map[string]any{}
	for _, f := range reflect.VisibleFields(v.Type()) {
		tag, ok := f.Tag.Lookup("pulumi")
		if !ok || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		m[name] = v.FieldByIndex(f.Index).Interface()
	}
	return m
}
