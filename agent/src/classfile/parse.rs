//! Class-file structure: locates the pool, fields, methods and attributes
//! without copying, so the rewriter can splice unchanged byte ranges.

use super::constpool::ConstPool;
use super::reader::Reader;
use super::ClassFileError;

pub(crate) const ACC_STATIC: u16 = 0x0008;

/// The parsed outline of a class file; byte offsets index `bytes`.
pub(crate) struct RawClass<'a> {
    pub(crate) major: u16,
    pub(crate) pool: ConstPool<'a>,
    pub(crate) access: u16,
    pub(crate) this_class: u16,
    pub(crate) super_class: u16,
    pub(crate) interfaces: Vec<u16>,
    pub(crate) static_fields: u32,
    pub(crate) instance_fields: u32,
    /// Offset of `methods_count`.
    pub(crate) methods_start: usize,
    pub(crate) methods: Vec<RawMethod<'a>>,
    /// Offset just past the last method (start of the class attributes).
    pub(crate) methods_end: usize,
    /// Name index of the SourceFile attribute's value.
    pub(crate) source_file: Option<u16>,
}

pub(crate) struct RawMethod<'a> {
    /// Byte range of the whole method_info.
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) access: u16,
    pub(crate) name: u16,
    pub(crate) desc: u16,
    /// Offset of the Code attribute's `attribute_name_index`, and its body.
    pub(crate) code: Option<(usize, &'a [u8])>,
    pub(crate) exceptions: Option<&'a [u8]>,
}

/// An attribute: name index and body.
pub(crate) struct Attr<'a> {
    pub(crate) name: u16,
    pub(crate) body: &'a [u8],
    /// Offset of the attribute header in the enclosing buffer.
    pub(crate) at: usize,
}

/// Reads `attributes_count` and the attributes that follow.
pub(crate) fn attrs<'a>(r: &mut Reader<'a>) -> Result<Vec<Attr<'a>>, ClassFileError> {
    let n = r.u16()?;
    let mut v = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let at = r.pos();
        let name = r.u16()?;
        let len = r.u32()? as usize;
        v.push(Attr {
            name,
            body: r.bytes(len)?,
            at,
        });
    }
    Ok(v)
}

pub(crate) fn parse(bytes: &[u8]) -> Result<RawClass<'_>, ClassFileError> {
    let mut r = Reader::new(bytes);
    if r.u32()? != 0xCAFE_BABE {
        return Err(ClassFileError::BadMagic);
    }
    let _minor = r.u16()?;
    let major = r.u16()?;
    let pool = ConstPool::parse(bytes, &mut r)?;
    let access = r.u16()?;
    let this_class = r.u16()?;
    let super_class = r.u16()?;
    let n = r.u16()?;
    let mut interfaces = Vec::with_capacity(n as usize);
    for _ in 0..n {
        interfaces.push(r.u16()?);
    }
    let (mut static_fields, mut instance_fields) = (0, 0);
    for _ in 0..r.u16()? {
        let acc = r.u16()?;
        r.skip(4)?;
        attrs(&mut r)?;
        if acc & ACC_STATIC != 0 {
            static_fields += 1;
        } else {
            instance_fields += 1;
        }
    }
    let methods_start = r.pos();
    let n = r.u16()?;
    let mut methods = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let start = r.pos();
        let access = r.u16()?;
        let name = r.u16()?;
        let desc = r.u16()?;
        let (mut code, mut exceptions) = (None, None);
        for a in attrs(&mut r)? {
            match pool.utf8_bytes(a.name)? {
                b"Code" if code.is_none() => code = Some((a.at, a.body)),
                b"Exceptions" if exceptions.is_none() => exceptions = Some(a.body),
                b"Code" | b"Exceptions" => {
                    return Err(ClassFileError::BadCode("duplicate attribute"))
                }
                _ => {}
            }
        }
        methods.push(RawMethod {
            start,
            end: r.pos(),
            access,
            name,
            desc,
            code,
            exceptions,
        });
    }
    let methods_end = r.pos();
    let mut source_file = None;
    for a in attrs(&mut r)? {
        if pool.utf8_bytes(a.name)? == b"SourceFile" && source_file.is_none() {
            source_file = Some(Reader::new(a.body).u16()?);
        }
    }
    if !r.is_empty() {
        return Err(ClassFileError::BadCode("trailing bytes after class"));
    }
    Ok(RawClass {
        major,
        pool,
        access,
        this_class,
        super_class,
        interfaces,
        static_fields,
        instance_fields,
        methods_start,
        methods,
        methods_end,
        source_file,
    })
}

/// One exception_table entry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Handler {
    pub(crate) start: u16,
    pub(crate) end: u16,
    pub(crate) handler: u16,
    pub(crate) catch_type: u16,
}

/// The body of a Code attribute.
pub(crate) struct RawCode<'a> {
    pub(crate) max_stack: u16,
    pub(crate) max_locals: u16,
    pub(crate) code: &'a [u8],
    pub(crate) handlers: Vec<Handler>,
    pub(crate) attrs: Vec<Attr<'a>>,
}

pub(crate) fn parse_code(body: &[u8]) -> Result<RawCode<'_>, ClassFileError> {
    let mut r = Reader::new(body);
    let max_stack = r.u16()?;
    let max_locals = r.u16()?;
    let len = r.u32()? as usize;
    if len == 0 || len > 65535 {
        return Err(ClassFileError::BadCode("code length"));
    }
    let code = r.bytes(len)?;
    let n = r.u16()?;
    let mut handlers = Vec::with_capacity(n as usize);
    for _ in 0..n {
        handlers.push(Handler {
            start: r.u16()?,
            end: r.u16()?,
            handler: r.u16()?,
            catch_type: r.u16()?,
        });
    }
    let attrs = attrs(&mut r)?;
    if !r.is_empty() {
        return Err(ClassFileError::BadCode("Code attribute length"));
    }
    Ok(RawCode {
        max_stack,
        max_locals,
        code,
        handlers,
        attrs,
    })
}
