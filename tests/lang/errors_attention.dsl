# scaled_dot_product_attention's argument checks from the language: each names the
# argument and the shapes or values, at the DSL expression that called the op.

# case: attn_mask that does not broadcast to the scores
# expect error: tests/lang/errors_attention.dsl:7:9: error: scaled_dot_product_attention: argument 'attn_mask' of shape [4, 3] cannot be broadcast to the attention scores' shape [2, 4, 5] [batch..., query positions, key positions]
let q = randn([2, 4, 8])
let o = scaled_dot_product_attention(q, randn([2, 5, 8]), randn([2, 5, 8]), attn_mask=ones([4, 3]) > 0)
# ---
# case: attn_mask of an integer dtype
# expect error: tests/lang/errors_attention.dsl:12:9: error: scaled_dot_product_attention: argument 'attn_mask' must be bool or of the query's dtype f32, got i64 (shape [4, 4])
let q = randn([4, 8])
let o = scaled_dot_product_attention(q, q, q, attn_mask=ones([4, 4], dtype=i64))
# ---
# case: attn_mask together with is_causal
# expect error: tests/lang/errors_attention.dsl:17:9: error: scaled_dot_product_attention: give attn_mask or is_causal=true, not both (got attn_mask of shape [4, 4])
let q = randn([4, 8])
let o = scaled_dot_product_attention(q, q, q, attn_mask=ones([4, 4]) > 0, is_causal=true)
# ---
# case: grouped-query attention whose query heads are not a multiple of the key heads
# expect error: tests/lang/errors_attention.dsl:22:9: error: scaled_dot_product_attention: with enable_gqa, the query's heads (6, shape [1, 6, 3, 4]) must be a multiple of the key's and value's (4, shape [1, 4, 3, 4])
let k = randn([1, 4, 3, 4])
let o = scaled_dot_product_attention(randn([1, 6, 3, 4]), k, k, enable_gqa=true)
# ---
# case: grouped-query attention with different key and value heads
# expect error: tests/lang/errors_attention.dsl:26:9: error: scaled_dot_product_attention: with enable_gqa, 'key' of shape [1, 2, 3, 4] and 'value' of shape [1, 1, 3, 4] must have the same number of heads (dim -3), got 2 and 1
let o = scaled_dot_product_attention(randn([1, 4, 3, 4]), randn([1, 2, 3, 4]), randn([1, 1, 3, 4]), enable_gqa=true)
# ---
# case: fewer key heads than query heads without enable_gqa
# expect error: tests/lang/errors_attention.dsl:30:9: error: scaled_dot_product_attention: the batch dims [1, 2] of 'key' (shape [1, 2, 3, 4]) cannot be broadcast with the batch dims [1, 4] of 'query' (shape [1, 4, 3, 4]); for fewer key/value heads than query heads pass enable_gqa=true
let o = scaled_dot_product_attention(randn([1, 4, 3, 4]), randn([1, 2, 3, 4]), randn([1, 2, 3, 4]))
# ---
# case: batch dims that do not broadcast
# expect error: tests/lang/errors_attention.dsl:34:9: error: scaled_dot_product_attention: the batch dims [2] of 'key' (shape [2, 4, 8]) cannot be broadcast with the batch dims [3] of 'query' (shape [3, 4, 8])
let o = scaled_dot_product_attention(randn([3, 4, 8]), randn([2, 4, 8]), randn([2, 4, 8]))
# ---
# case: dropout_p out of range
# expect error: tests/lang/errors_attention.dsl:39:9: error: scaled_dot_product_attention: dropout_p must be between 0 and 1, got 1.5
let q = randn([4, 8])
let o = scaled_dot_product_attention(q, q, q, dropout_p=1.5)
