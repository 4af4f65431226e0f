/* Unit tests: the intrusive red-black tree. */
#include "config.h"
#include "lib/rbtree.h"
#include "lib/util.h"

#include <check.h>
#include <stdlib.h>

struct item {
	struct rb_node node;
	int key;
};

static void insert(struct rb_root *root, struct item *it)
{
	struct rb_node **link = &root->node, *parent = NULL;

	while (*link) {
		parent = *link;
		if (it->key < rb_entry(parent, struct item, node)->key)
			link = &parent->left;
		else
			link = &parent->right;
	}
	rb_link(&it->node, parent, link);
	rb_insert_fixup(root, &it->node);
}

START_TEST(test_insert_in_order_and_erase)
{
	enum { N = 2000 };
	struct rb_root root = RB_ROOT_INIT;
	struct item *items = xzalloc(N * sizeof(*items));
	int prev = -1, count = 0;

	srand(1);
	for (int i = 0; i < N; i++) {
		items[i].key = rand() % 100000;
		insert(&root, &items[i]);
		ck_assert_int_ge(rb_check(&root), 1);
	}
	for (struct rb_node *n = rb_first(&root); n; n = rb_next(n)) {
		int k = rb_entry(n, struct item, node)->key;
		ck_assert_int_le(prev, k);
		prev = k;
		count++;
	}
	ck_assert_int_eq(count, N);
	/* Erase every other item, checking the invariants each time. */
	for (int i = 0; i < N; i += 2) {
		rb_erase(&root, &items[i].node);
		ck_assert_int_ge(rb_check(&root), 0);
	}
	count = 0;
	for (struct rb_node *n = rb_last(&root); n; n = rb_prev(n))
		count++;
	ck_assert_int_eq(count, N / 2);
	for (int i = 1; i < N; i += 2)
		rb_erase(&root, &items[i].node);
	ck_assert(rb_empty(&root));
	free(items);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rbtree");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_insert_in_order_and_erase);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
