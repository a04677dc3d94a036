/* rpma-recv --export FILE: a log's committed content written to FILE (or
 * standard output), read by our own code: the archive's files in order,
 * then the pool's bytes through a read-only mapping. No PMDK tool and no
 * libpmemlog: a replica stays readable after PMDK 2.0. It writes nothing
 * to the pool or the archive, takes no lock and needs no RDMA device. */
#ifndef RECV_EXPORT_H
#define RECV_EXPORT_H

/* pool, its archive (NULL: none) named for the log name ("" unnamed);
 * file "-" for standard output. Returns 0 or a negative rs_errc, the
 * reason printed. */
int recv_export(const char *pool, const char *archive_dir, const char *name,
		const char *file);

#endif
