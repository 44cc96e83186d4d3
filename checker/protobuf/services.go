package protobuf

import (
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// Source paths inside a MethodDescriptorProto.
var (
	methodInputPath       = []int32{2}
	methodOutputPath      = []int32{3}
	methodIdempotencyPath = []int32{4, 34} // options.idempotency_level
)

func streaming(b bool) string {
	if b {
		return "streaming"
	}
	return "unary"
}

var rpcSameClientStreaming = rule{
	id:      "RPC_SAME_CLIENT_STREAMING",
	purpose: "An RPC keeps its client streaming mode.",
	method: func(r *report, prev, cur protoreflect.MethodDescriptor) {
		if prev.IsStreamingClient() != cur.IsStreamingClient() {
			r.add(cur, prev, nil, "RPC %q on service %q changed from client %s to client %s.", cur.Name(), cur.Parent().Name(), streaming(prev.IsStreamingClient()), streaming(cur.IsStreamingClient()))
		}
	},
}

var rpcSameServerStreaming = rule{
	id:      "RPC_SAME_SERVER_STREAMING",
	purpose: "An RPC keeps its server streaming mode.",
	method: func(r *report, prev, cur protoreflect.MethodDescriptor) {
		if prev.IsStreamingServer() != cur.IsStreamingServer() {
			r.add(cur, prev, nil, "RPC %q on service %q changed from server %s to server %s.", cur.Name(), cur.Parent().Name(), streaming(prev.IsStreamingServer()), streaming(cur.IsStreamingServer()))
		}
	},
}

var rpcSameRequestType = rule{
	id:      "RPC_SAME_REQUEST_TYPE",
	purpose: "An RPC keeps its request type.",
	method: func(r *report, prev, cur protoreflect.MethodDescriptor) {
		if prev.Input().FullName() != cur.Input().FullName() {
			r.add(cur, prev, methodInputPath, "RPC %q on service %q changed request type from %q to %q.", cur.Name(), cur.Parent().Name(), prev.Input().FullName(), cur.Input().FullName())
		}
	},
}

var rpcSameResponseType = rule{
	id:      "RPC_SAME_RESPONSE_TYPE",
	purpose: "An RPC keeps its response type.",
	method: func(r *report, prev, cur protoreflect.MethodDescriptor) {
		if prev.Output().FullName() != cur.Output().FullName() {
			r.add(cur, prev, methodOutputPath, "RPC %q on service %q changed response type from %q to %q.", cur.Name(), cur.Parent().Name(), prev.Output().FullName(), cur.Output().FullName())
		}
	},
}

var rpcSameIdempotencyLevel = rule{
	id:      "RPC_SAME_IDEMPOTENCY_LEVEL",
	purpose: "An RPC keeps its idempotency level, since clients retry by it.",
	method: func(r *report, prev, cur protoreflect.MethodDescriptor) {
		pl, cl := idempotency(prev), idempotency(cur)
		if pl != cl {
			r.add(cur, prev, methodIdempotencyPath, "RPC %q on service %q changed option \"idempotency_level\" from %q to %q.", cur.Name(), cur.Parent().Name(), pl, cl)
		}
	},
}

func idempotency(m protoreflect.MethodDescriptor) descriptorpb.MethodOptions_IdempotencyLevel {
	if o, ok := m.Options().(*descriptorpb.MethodOptions); ok && o != nil {
		return o.GetIdempotencyLevel()
	}
	return descriptorpb.MethodOptions_IDEMPOTENCY_UNKNOWN
}
