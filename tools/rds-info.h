/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rds-info's three outputs share how a table is read: rds-info.c prints the
 * classic columns, info-json.c the --json document, info-prom.c the
 * --prometheus exposition.
 */
#ifndef RDS_INFO_H
#define RDS_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/rds.h>

/*
 * One table, already read: the kernel returns the size of one item, which
 * may be larger than the struct we know (newer kernels append fields).
 */
struct table {
	char *buf;
	size_t len;
	size_t each;
};

/* Copies the item at @off of @t into @item; false past the last whole one. */
static inline bool table_item(const struct table *t, size_t off, void *item, size_t size)
{
	if (t->each < size || off + size > t->len)
		return false;
	memcpy(item, t->buf + off, size);
	return true;
}

bool read_table(int fd, int opt, struct table *t);

/* Rotating static buffers: up to four results are valid at once. */
const char *ip4(__be32 a);
const char *ip6(const void *a);
/* An address of our own tables: v4-mapped ones as dotted quads. */
const char *ipx(const void *a);
/* rds_info_path.state's name: "up", "down", ... */
const char *path_state(unsigned int state);

/* The --json printers, one per table flavour (info-json.c). */
void json_counters(struct table *t);
void json_conns(struct table *t);
void json_conns6(struct table *t);
void json_sockets(struct table *t);
void json_sockets6(struct table *t);
void json_msgs(struct table *t);
void json_msgs6(struct table *t);
void json_tcp(struct table *t);
void json_tcp6(struct table *t);
void json_ib(struct table *t);
void json_ib6(struct table *t);
void json_paths(struct table *t);
void json_sock_drops(struct table *t);
void json_carriers(struct table *t);
void json_table_begin(const char *key, bool first, bool is_object);
void json_table_end(bool is_object);

/* The whole --prometheus exposition (info-prom.c). */
void prom_export(int fd);

#endif
