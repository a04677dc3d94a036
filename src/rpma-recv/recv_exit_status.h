/* rpma-recv's exit status (rpma-recv(1), EXIT STATUS), from the error code
 * a run ended with: the one place that says what a failure means to the
 * caller. */
#ifndef RECV_EXIT_STATUS_H
#define RECV_EXIT_STATUS_H

/* 0 for 0; 3 when the RDMA listener could not be set up (an RDMA or
 * address error); 2 for everything else: a bad option, configuration or
 * pool. */
int recv_exit_status(int errc);

#endif
