package cluster

import (
	"errors"
	"strings"

	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/grpcrpc"
)

// transport is a minicluster.Transport over gRPC: the gateways this
// process serves are endpoints of server (an address of the form
// "host:port/name", or a bare name, is served as name), and every call
// goes through client. A bare name is an endpoint of this process's
// server, so the session cluster's in-process names
// (minicluster.ResourceManagerName) work unchanged.
type transport struct {
	server *grpcrpc.Server
	client *grpcrpc.Client
}

// self is the address of this process's server.
func (t transport) self() string { return t.server.Addr() }

// name is the endpoint's name of addr on this process's server.
func (t transport) name(addr string) string {
	return strings.TrimPrefix(addr, t.self()+"/")
}

// abs is addr with this process's server for a bare name.
func (t transport) abs(addr string) string {
	if hostport, _, _ := strings.Cut(addr, "/"); strings.Contains(hostport, ":") {
		return addr
	}
	return grpcrpc.Address(t.self(), addr)
}

func (t transport) ServeJobMaster(addr string, g rpc.JobMasterGateway) (func(), error) {
	return t.server.ServeJobMaster(t.name(addr), g)
}

func (t transport) ServeTaskExecutor(string, rpc.TaskExecutorGateway) (func(), error) {
	return nil, errors.New("cluster: a JobManager runs no TaskManager of its own")
}

func (t transport) ServeResourceManager(addr string, g rpc.ResourceManagerGateway) (func(), error) {
	return t.server.ServeResourceManager(t.name(addr), g)
}

func (t transport) JobMaster(addr string) rpc.JobMasterGateway {
	return t.client.JobMaster(t.abs(addr))
}

func (t transport) TaskExecutor(addr string) rpc.TaskExecutorGateway {
	return t.client.TaskExecutor(t.abs(addr))
}

func (t transport) ResourceManager(addr string) rpc.ResourceManagerGateway {
	return t.client.ResourceManager(t.abs(addr))
}
