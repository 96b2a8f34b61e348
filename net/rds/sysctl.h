/* SPDX-License-Identifier: GPL-2.0 */
/* The tunables under /proc/sys/net/rds. */
#ifndef _RDS_SYSCTL_H
#define _RDS_SYSCTL_H

extern unsigned int rds_sysctl_max_unacked_packets;
extern unsigned int rds_sysctl_max_unacked_bytes;
extern unsigned int rds_sysctl_ping_enable;
extern unsigned int rds_sysctl_max_mrs_per_socket;

int rds_sysctl_init(void);
void rds_sysctl_exit(void);

#endif /* _RDS_SYSCTL_H */
