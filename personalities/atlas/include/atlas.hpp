// SPDX-License-Identifier: MIT
// ATLAS message passing, the seed's C++ classes: header-only wrappers over atlas.h, errors as exceptions.
#ifndef ATLAS_HPP
#define ATLAS_HPP

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "atlas.h"

namespace atlas {

/*
 * The seed's T2Exception / SCIException: thrown for every error of the C
 * layer but back-pressure (Node::try_send reports that as false).  code()
 * is the atlas_err, message() the text with its detail.
 */
class Exception : public std::exception {
public:
	explicit Exception(int code)
		: code_(code), msg_(std::string(atlas_strerror(code)) + ": " + atlas_last_error()) {}
	int code() const noexcept { return code_; }
	const std::string &message() const noexcept { return msg_; }
	const char *what() const noexcept override { return msg_.c_str(); }

private:
	int code_;
	std::string msg_;
};

namespace detail {
inline int check(int rc)
{
	if (rc < 0)
		throw Exception(rc);
	return rc;
}
} // namespace detail

/* Buffer: owns an atlas_buffer (RAII, move-only); a send takes it (the Buffer becomes empty). */
class Buffer {
public:
	Buffer() = default;
	explicit Buffer(atlas_buffer *b) : b_(b) {}
	Buffer(Buffer &&o) noexcept : b_(std::exchange(o.b_, nullptr)) {}
	Buffer &operator=(Buffer &&o) noexcept
	{
		if (this != &o) {
			reset();
			b_ = std::exchange(o.b_, nullptr);
		}
		return *this;
	}
	Buffer(const Buffer &) = delete;
	Buffer &operator=(const Buffer &) = delete;
	~Buffer() { reset(); }

	void *data() const { return atlas_buffer_data(b_); }
	size_t size() const { return atlas_buffer_size(b_); }
	void resize(size_t n) { detail::check(atlas_buffer_resize(b_, n)); }
	bool empty() const { return b_ == nullptr; }
	explicit operator bool() const { return b_ != nullptr; }
	atlas_buffer *get() const { return b_; }
	/* Give up ownership (to a send). */
	atlas_buffer *release() { return std::exchange(b_, nullptr); }
	void reset()
	{
		if (b_)
			atlas_buffer_release(std::exchange(b_, nullptr));
	}

private:
	atlas_buffer *b_ = nullptr;
};

/* Node: a remote process (a handle; the factory owns the object). */
class Node {
public:
	explicit Node(atlas_node *n) : n_(n) {}
	int id() const { return atlas_node_id(n_); }
	/*
	 * Non-blocking ordered send: the buffer is taken (empty afterwards).
	 * When the send queue is full (back-pressure) send() flushes and retries
	 * until it is accepted; try_send() returns false instead, the buffer kept.
	 */
	bool try_send(Buffer &b)
	{
		int rc = atlas_node_send(n_, b.get());
		if (rc == ATLAS_ERR_AGAIN)
			return false;
		detail::check(rc);
		b.release();
		return true;
	}
	void send(Buffer &b)
	{
		while (!try_send(b))
			std::this_thread::yield();      // the receiver may need this core
	}
	/* Blocking receive, and the non-blocking one (no value: nothing has arrived). */
	Buffer receive()
	{
		atlas_buffer *b;
		detail::check(atlas_node_recv(n_, &b));
		return Buffer(b);
	}
	std::optional<Buffer> try_receive()
	{
		atlas_buffer *b;
		if (detail::check(atlas_node_try_recv(n_, &b)) == 0)
			return std::nullopt;
		return Buffer(b);
	}
	int queued() const { return atlas_node_queued(n_); }
	atlas_node *get() const { return n_; }
	bool operator==(const Node &o) const { return n_ == o.n_; }

private:
	atlas_node *n_;
};

/*
 * Group: the seed's pure abstract base class.  send() to every member;
 * receive() from any member with the fair rotating start (from: who sent).
 */
class Group {
public:
	Group(const Group &) = delete;
	Group &operator=(const Group &) = delete;
	virtual ~Group() { atlas_group_destroy(g_); }
	virtual bool is_dynamic() const = 0;

	void send(Buffer &b)
	{
		detail::check(atlas_group_send(g_, b.get()));
		b.release();
	}
	Buffer receive(int *from = nullptr)
	{
		atlas_buffer *b;
		atlas_node *n;
		detail::check(atlas_group_recv(g_, &b, &n));
		if (from)
			*from = atlas_node_id(n);
		return Buffer(b);
	}
	std::optional<Buffer> try_receive(int *from = nullptr)
	{
		atlas_buffer *b;
		atlas_node *n;
		if (detail::check(atlas_group_try_recv(g_, &b, &n)) == 0)
			return std::nullopt;
		if (from)
			*from = atlas_node_id(n);
		return Buffer(b);
	}
	int size() const { return detail::check(atlas_group_size(g_)); }
	std::vector<Node> members() const
	{
		std::vector<atlas_node *> v(static_cast<size_t>(size()) + 1);
		int n = detail::check(atlas_group_members(g_, v.data(), static_cast<int>(v.size())));
		std::vector<Node> out;
		for (int i = 0; i < n && i < static_cast<int>(v.size()); i++)
			out.emplace_back(v[static_cast<size_t>(i)]);
		return out;
	}
	atlas_group *get() const { return g_; }

protected:
	explicit Group(atlas_group *g) : g_(g) {}
	atlas_group *g_;
};

/* A static group: its members named at creation ("all", "others", "0-3,6"). */
class StaticGroup : public Group {
public:
	explicit StaticGroup(atlas_group *g) : Group(g) {}
	bool is_dynamic() const override { return false; }
};

/* A dynamic group: created empty, members added and removed. */
class DynamicGroup : public Group {
public:
	explicit DynamicGroup(atlas_group *g) : Group(g) {}
	bool is_dynamic() const override { return true; }
	void add(const Node &n) { detail::check(atlas_group_add(g_, n.get())); }
	void remove(const Node &n) { detail::check(atlas_group_remove(g_, n.get())); }
};

/*
 * NodeFactory: the singleton.  instance() creates it on first use (the
 * default parameters and the ATLAS_* environment; init(params) before that
 * chooses others) and keeps it until the program exits.
 */
class NodeFactory {
public:
	static NodeFactory &instance() { return the(nullptr); }
	static NodeFactory &init(const atlas_params &p) { return the(&p); }
	NodeFactory(const NodeFactory &) = delete;
	NodeFactory &operator=(const NodeFactory &) = delete;

	Node create_node(int id)
	{
		atlas_node *n;
		detail::check(atlas_factory_create_node(f_, id, &n));
		return Node(n);
	}
	Buffer create_buffer(size_t size)
	{
		atlas_buffer *b;
		detail::check(atlas_factory_create_buffer(f_, size, &b));
		return Buffer(b);
	}
	std::unique_ptr<DynamicGroup> create_group()
	{
		atlas_group *g;
		detail::check(atlas_factory_create_group(f_, &g));
		return std::make_unique<DynamicGroup>(g);
	}
	std::unique_ptr<Group> create_group(const std::string &name)
	{
		atlas_group *g;
		detail::check(atlas_factory_create_static_group(f_, name.c_str(), &g));
		return std::make_unique<StaticGroup>(g);
	}
	int self() const { return atlas_factory_self(f_); }
	int size() const { return atlas_factory_size(f_); }
	/* Push the send queues; the buffers still queued or outstanding. */
	int flush() { return detail::check(atlas_factory_flush(f_)); }
	atlas_factory *get() const { return f_; }

private:
	explicit NodeFactory(const atlas_params *p)
	{
		detail::check(p ? atlas_factory_init(p, &f_) : atlas_factory_get(&f_));
	}
	~NodeFactory() { atlas_factory_release(f_); }
	static NodeFactory &the(const atlas_params *p)
	{
		static NodeFactory f(p);
		return f;
	}
	atlas_factory *f_ = nullptr;
};

} // namespace atlas

#endif // ATLAS_HPP
