"""A jit-compiled JAX training step as users write it: a bf16 MLP, loss and
gradients by value_and_grad, three SGD steps, then a sort.  Prints the last
loss and a checksum of the sorted result."""
import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(0)
k1, k2, k3 = jax.random.split(key, 3)
x = jax.random.normal(k1, (1024, 512), dtype=jnp.bfloat16)
y = jax.random.normal(k2, (1024, 256), dtype=jnp.bfloat16)
params = {
    "w1": jax.random.normal(k3, (512, 1024), dtype=jnp.bfloat16) * 0.05,
    "w2": jnp.zeros((1024, 256), dtype=jnp.bfloat16),
}


def loss_fn(p, x, y):
    h = jax.nn.gelu(x @ p["w1"])
    return jnp.mean(((h @ p["w2"]) - y).astype(jnp.float32) ** 2)


@jax.jit
def step(p, x, y):
    loss, g = jax.value_and_grad(loss_fn)(p, x, y)
    return jax.tree_util.tree_map(lambda a, b: a - 0.01 * b.astype(a.dtype), p, g), loss


loss = None
for _ in range(3):
    params, loss = step(params, x, y)
s = jnp.sort(params["w1"].astype(jnp.float32).ravel())
print("loss %.6f sorted-sum %.4f" % (float(loss), float(s[::97].sum())))
