/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One version for the three modules and the tools: modinfo shows it, and
 * the tools' --version prints it beside what /sys/module/<name>/version
 * says of the loaded modules (in-tree rds.ko has one too, "4.0"; its
 * transports have none).
 */
#ifndef _RDS_VERSION_H
#define _RDS_VERSION_H

#define RDS_VERSION	"0.1"

#endif /* _RDS_VERSION_H */
