// Socket helpers shared by the blocking TCP transport (tcp_transport.cc) and the epoll server,
// so both bind, reuse addresses and name peers the same way.
#ifndef HADOOP_ACCEL_JBS_TCP_SOCKET_H
#define HADOOP_ACCEL_JBS_TCP_SOCKET_H

#include <cstdint>
#include <string>

#include "transport.h"

namespace hadoop_accel::jbs {

// A listening socket at `at` (port 0: any free port) with SO_REUSEADDR, so a restarted
// daemon can bind the port its crashed predecessor left in TIME_WAIT. Returns 0 with *fd and
// the bound *port, or an errno.
int ListenTcp(const Endpoint& at, bool nonblocking, int* fd, uint16_t* port);

// "address:port" of the socket's peer, "" if unknown.
std::string TcpPeerName(int fd);

}  // namespace hadoop_accel::jbs

#endif
